// `lockweave check`'s audit: every way the project builds or runs TypeScript, each held against
// the table in toolchain-rules.ts. Reads text only; nothing is run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownTypeScript } from '../transformer/typescript';
import { isLockweaveTransform, weavingEntry } from '../transformer/plugin-entry';
import { projectTypeScript } from './project';
import { quotedCommands, splitCommands } from './shell-words';
import { printableWithoutCredentials } from './without-credentials';
import { TOOLCHAIN_RULES, type ProjectFacts, type ToolRule, type Use } from './toolchain-rules';

export interface Hole {
  /** `package.json scripts.build` or `vite.config.ts`. */
  readonly where: string;
  /** The command, for a script. */
  readonly command?: string;
  readonly tool: string;
  readonly runsUnlocked: string;
  readonly fix: string;
}

export interface Audit {
  readonly packageJson: string | undefined;
  readonly facts: ProjectFacts;
  readonly holes: readonly Hole[];
  /** How many script commands and config files were held against the table. */
  readonly seen: number;
}

interface Manifest {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export function auditToolchain(configFile: string, typescriptOverride?: string): Audit {
  const tsconfigDir = path.dirname(configFile);
  const packageJson = nearestPackageJson(tsconfigDir);
  const packageDir = packageJson ? path.dirname(packageJson) : tsconfigDir;
  const manifest: Manifest = packageJson ? JSON.parse(fs.readFileSync(packageJson, 'utf8')) : {};
  const facts = projectFacts(configFile, packageDir, manifest, typescriptOverride);
  const dirs = [...new Set([packageDir, tsconfigDir])];
  const read = (name: string) => readIn(dirs, name);

  // A tool's config under its package.json key (jest's "jest"): what the tool reads when it has no config file.
  const packageConfig = (rule: ToolRule): Found | undefined =>
    packageJson && rule.packageKey && manifest[rule.packageKey] !== undefined
      ? {
          file: packageJson,
          label: `package.json "${rule.packageKey}"`,
          text: JSON.stringify(manifest[rule.packageKey]),
        }
      : undefined;

  const holes: Hole[] = [];
  /** Each config file reported, by tool, with the parts its holes named ('' for the whole). */
  const reportedConfigs = new Map<string, Set<string>>();
  let seen = 0;
  /** The parts of this use that run unlocked, each a hole unless `reported` named it; undefined when it weaves. */
  const hold = (rule: ToolRule, use: Use, where: string, command?: string, reported?: ReadonlySet<string>) => {
    if (rule.safe(use)) return undefined;
    const whole = () => ({
      part: '',
      runsUnlocked: typeof rule.runsUnlocked === 'string' ? rule.runsUnlocked : rule.runsUnlocked(use),
      fix: rule.fix,
    });
    // A Nest monorepo's config: a hole for each project that builds unlocked, named.
    const parts = rule.unlockedParts?.(use) ?? [whole()];
    for (const { part, runsUnlocked, fix } of parts)
      if (!reported?.has(part))
        holes.push({ where: part ? `${where} (${part})` : where, command, tool: rule.tool, runsUnlocked, fix });
    return new Set(parts.map(({ part }) => part));
  };

  // Config files, whether or not a script names them: `npx vite` runs them too.
  for (const rule of TOOLCHAIN_RULES) {
    for (const name of rule.configFiles ?? []) {
      const found = read(name);
      if (!found || (rule.configMatters && !rule.configMatters.test(found.text))) continue;
      seen++;
      const parts = hold(rule, { text: found.text, config: found.text, project: facts }, found.label);
      if (parts) reportedConfigs.set(`${rule.tool}:${found.file}`, parts);
    }
    const inPackage = packageConfig(rule);
    if (inPackage) {
      seen++;
      const parts = hold(rule, { text: inPackage.text, config: inPackage.text, project: facts }, inPackage.label);
      if (parts) reportedConfigs.set(`${rule.tool}:${inPackage.file}`, parts);
    }
  }

  // Each command of each script, and the commands a wrapper there runs from its quoted words.
  const commands = Object.entries(manifest.scripts ?? {}).flatMap(([name, script]) =>
    splitCommands(String(script)).flatMap((command) => [
      { where: `package.json scripts.${name}`, command, wrapper: undefined as string | undefined },
      ...quotedCommands(command).map((inner) => ({
        where: `package.json scripts.${name} (a command its wrapper runs from a quoted word)`,
        command: inner,
        wrapper: command,
      })),
    ]),
  );
  if (commands.length === 0 && seen === 0) {
    // Nothing says how the project is built: audit the route the contract documents for its
    // tsconfig (tspc; on TypeScript 7, whose tsc is what the tsconfig would be given to, tsc).
    const route = (facts.typescriptMajor ?? 0) >= 7 ? 'tsc' : 'tspc';
    const label = `${path.relative(process.cwd(), configFile)} (no script builds it: audited as \`${route} -p\`)`;
    commands.push({
      where: label,
      command: `${route} -p ${path.relative(packageDir, configFile)}`,
      wrapper: undefined,
    });
  }
  for (const { where, command, wrapper } of commands) {
    // A command in a quoted word counts only where a rule knows it (not `'--import x'`), and a rule
    // the whole wrapping command met already (its text holds the quoted one's) is not met again.
    const matches = (rule: ToolRule) => rule.command?.test(command) && !(wrapper && rule.command.test(wrapper));
    if (wrapper === undefined || TOOLCHAIN_RULES.some(matches)) seen++;
    for (const rule of TOOLCHAIN_RULES) {
      if (!matches(rule)) continue;
      const config = rule.configFiles ? (configOf(command, rule, dirs, read) ?? packageConfig(rule)) : undefined;
      // The config file's own holes name this use already, but for a part (a Nest project) the
      // command alone leaves unlocked (`nest build api -b swc`).
      const reported = config?.file ? reportedConfigs.get(`${rule.tool}:${config.file}`) : undefined;
      if (reported && !rule.unlockedParts) break;
      if (
        hold(rule, { text: command, config: config?.text ?? '', project: facts }, where, command, reported) ||
        reported
      )
        break;
    }
    for (const script of scriptFilesOf(command, dirs)) {
      for (const rule of TOOLCHAIN_RULES.filter(
        (r) => !r.command && !r.configFiles && r.configMatters?.test(script.text),
      )) {
        seen++;
        hold(
          rule,
          { text: script.text, config: script.text, project: facts, runBy: command },
          `${script.label} (run by ${where})`,
        );
      }
    }
  }
  return { packageJson, facts, holes, seen };
}

/** The config a command reads: `--config <file>` / `-c <file>`, else the tool's first default file. */
function configOf(
  command: string,
  rule: ToolRule,
  dirs: readonly string[],
  read: (name: string) => Found | undefined,
): Found | undefined {
  const named = /(?:^|\s)(?:--config|-c)[\s=]+(\S+)/.exec(command)?.[1];
  if (named) return readIn(dirs, named.replace(/^['"]|['"]$/g, ''));
  for (const name of rule.configFiles ?? []) {
    const found = read(name);
    if (found) return found;
  }
  return undefined;
}

/**
 * JavaScript and TypeScript files a command runs that exist in the project, whatever runs them:
 * `node scripts/build.mjs`, `bun build.ts`, `bun run --bun build.ts`, `./build.ts` (a shebang).
 */
function scriptFilesOf(command: string, dirs: readonly string[]): Found[] {
  return command
    .split(/\s+/)
    .map((token) => token.replace(/^['"]|['"]$/g, ''))
    .filter((token) => /\.[cm]?[jt]s$/.test(token))
    .map((token) => readIn(dirs, token))
    .filter((found): found is Found => found !== undefined);
}

interface Found {
  readonly file: string;
  readonly label: string;
  readonly text: string;
}

function readIn(dirs: readonly string[], name: string): Found | undefined {
  for (const dir of dirs) {
    const file = path.resolve(dir, name);
    if (fs.existsSync(file) && fs.statSync(file).isFile()) {
      return { file, label: path.relative(process.cwd(), file) || name, text: fs.readFileSync(file, 'utf8') };
    }
  }
  return undefined;
}

/**
 * The package.json of the project: in the tsconfig's directory or the nearest above it, but not past
 * a directory that holds node_modules without a package.json (the root of an installed tree).
 */
function nearestPackageJson(dir: string): string | undefined {
  for (let current = dir, i = 0; i < 100; i++) {
    const candidate = path.join(current, 'package.json');
    if (fs.existsSync(candidate)) return candidate;
    if (fs.existsSync(path.join(current, 'node_modules'))) return undefined;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

function projectFacts(
  configFile: string,
  packageDir: string,
  manifest: Manifest,
  typescriptOverride?: string,
): ProjectFacts {
  const installed = projectTypeScript(packageDir, typescriptOverride);
  const declared = manifest.devDependencies?.typescript ?? manifest.dependencies?.typescript;
  const declaredMajor = declared ? Number(/\d+/.exec(declared)?.[0]) : undefined;
  const tsconfigs = new Map<string, ReturnType<typeof readTsconfig>>();
  const tsconfig = (file: string) => {
    if (!tsconfigs.has(file)) tsconfigs.set(file, readTsconfig(file));
    return tsconfigs.get(file)!;
  };
  const scripts = Object.values(manifest.scripts ?? {}).join('\n');
  /** The tsconfig a command compiles: its -p, else the project's. */
  const tsconfigOf = (command: string) => {
    const named = /(?:^|\s)(?:-p|--project)[\s=]+(\S+)/.exec(command)?.[1];
    const file = named ? path.resolve(packageDir, named) : configFile;
    return fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'tsconfig.json') : file;
  };
  const version = installed?.version ?? declared;
  return {
    typescriptMajor: installed?.major ?? declaredMajor,
    // Shown in a hole's message; a declared version may be a URL (git+https://user:token@…).
    typescriptVersion: version === undefined ? undefined : printableWithoutCredentials(version),
    tsPatchInstalled: resolves('ts-patch/package.json', packageDir),
    typescriptPatched: /ts-patch\s+install/.test(scripts) || isPatched(installed?.dir),
    hasPluginEntry: (command) => tsconfig(tsconfigOf(command)).pluginEntry,
    otherTransforms: (command) => tsconfig(tsconfigOf(command)).otherTransforms,
    tsNodeCompiler: tsconfig(configFile).tsNodeCompiler,
    readConfig: (names) =>
      names.map((name) => readIn([packageDir, path.dirname(configFile)], name)).find(Boolean)?.text ?? '',
  };
}

function readTsconfig(file: string): {
  pluginEntry: boolean;
  otherTransforms: string[];
  tsNodeCompiler: string | undefined;
} {
  if (!fs.existsSync(file)) return { pluginEntry: false, otherTransforms: [], tsNodeCompiler: undefined };
  const tsApi = ownTypeScript(path.dirname(file));
  const read = tsApi.readConfigFile(file, tsApi.sys.readFile);
  const host = { ...tsApi.sys, readDirectory: () => [] };
  const parsed = tsApi.parseJsonConfigFileContent(read.config ?? {}, host, path.dirname(file), undefined, file);
  const pluginEntry = weavingEntry(parsed.options.plugins) !== undefined;
  const plugins = Array.isArray(parsed.options.plugins) ? (parsed.options.plugins as { transform?: unknown }[]) : [];
  const otherTransforms = plugins
    .map((plugin) => plugin?.transform)
    .filter((transform): transform is string => typeof transform === 'string' && !isLockweaveTransform(transform))
    // Shown in a hole's message: the user's text, which may name a module by a URL with a token.
    .map(printableWithoutCredentials);
  const tsNode = (read.config as { 'ts-node'?: { compiler?: string } } | undefined)?.['ts-node'];
  return { pluginEntry, otherTransforms, tsNodeCompiler: tsNode?.compiler };
}

function resolves(specifier: string, dir: string): boolean {
  try {
    require.resolve(specifier, { paths: [dir] });
    return true;
  } catch {
    return false;
  }
}

/** `ts-patch install` rewrites typescript/lib/tsc.js with a `/// tsp-module:` header. */
function isPatched(typescriptDir: string | undefined): boolean {
  if (!typescriptDir) return false;
  try {
    const fd = fs.openSync(path.join(typescriptDir, 'lib', 'tsc.js'), 'r');
    try {
      const head = Buffer.alloc(4096);
      const length = fs.readSync(fd, head, 0, head.length, 0);
      return head.subarray(0, length).toString('utf8').includes('/// tsp-module:');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}
