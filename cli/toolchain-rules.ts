// The one table of toolchain facts `lockweave check` audits with: for each tool, how to see that the
// project uses it, what makes that use weave, what runs unlocked otherwise and the fix.
// It is a heuristic over text — package.json scripts, the tsconfig and the tools' config files —
// and can be fooled by what it cannot read (see AUDIT_BLIND_SPOTS).

import { configFiles, RSPACK_CONFIGS } from './config-files';
import { NEST_CONFIG_FILES } from './nest-config';
import { NEST_FIX, NEST_UNLOCKED, nestHoles } from './nest-holes';

/** One use of a tool: a command in a package.json script, or a config file. */
export interface Use {
  /** The command (`tsc -p tsconfig.build.json`) or the config file's text. */
  readonly text: string;
  /** For a command: the text of the config file it reads ('' when there is none). For a config file: its text. */
  readonly config: string;
  readonly project: ProjectFacts;
  /** For a script file a command runs (`bun build.ts`): that command. */
  readonly runBy?: string;
}

export interface ProjectFacts {
  /** The installed (else declared) major version of the project's `typescript`. */
  readonly typescriptMajor: number | undefined;
  /** Its version as a hole prints it: printable, without credentials (a declared version may be a URL). */
  readonly typescriptVersion: string | undefined;
  readonly tsPatchInstalled: boolean;
  /** `ts-patch install` ran (the project's tsc itself loads plugins). */
  readonly typescriptPatched: boolean;
  /** Whether the tsconfig a command names (`-p`; default tsconfig.json) has a lockweave plugin entry. */
  hasPluginEntry(command: string): boolean;
  /**
   * The `transform` of that tsconfig's plugin entries that are not lockweave's by name (a wrapper of
   * it among them, maybe), as a hole prints them: printable, without credentials.
   */
  otherTransforms(command: string): readonly string[];
  /** The tsconfig's `"ts-node": { "compiler" }`. */
  readonly tsNodeCompiler: string | undefined;
  /** Text of another config file of the project ('' when absent), e.g. vitest reading vite.config. */
  readConfig(names: readonly string[]): string;
}

export interface ToolRule {
  readonly tool: string;
  /** A command in a script that runs it (matched against one command of a script). */
  readonly command?: RegExp;
  /** Config files it reads from the package directory by default. */
  readonly configFiles?: readonly string[];
  /** A package.json key that holds its config instead. */
  readonly packageKey?: string;
  /** A config file counts only when its text matches (babel without the TypeScript preset compiles no TypeScript). */
  readonly configMatters?: RegExp;
  readonly safe: (use: Use) => boolean;
  readonly runsUnlocked: string | ((use: Use) => string);
  readonly fix: string;
  /**
   * For a use that builds several things its own way (a Nest monorepo's projects): each that runs
   * unlocked, its own hole. `safe` is then that there are none.
   */
  readonly unlockedParts?: (use: Use) => readonly PartHole[];
}

/** One of the holes of a use that builds several things: `part` names it ('' for the use as a whole). */
export interface PartHole {
  readonly part: string;
  readonly runsUnlocked: string;
  readonly fix: string;
}

const bin = (...names: string[]) => new RegExp(`(?:^|[\\s/])(?:${names.join('|')})(?=\\s|$)`);
const mentions =
  (...specifiers: string[]) =>
  (use: Use) =>
    specifiers.some((s) => use.config.includes(s));

/** Transformers that compile TypeScript for jest without weaving (ts-jest: unless given lockweave/ts-jest). */
const JEST_NOT_WEAVING = ['ts-jest', '@swc/jest', 'babel-jest', 'esbuild-jest', 'sucrase-jest', 'esbuild-runner/jest'];
/** Paths a tagged file could have: a config whose patterns give one of them to JEST_NOT_WEAVING leaves it unlocked. */
const JEST_PROBES = ['/p/src/orders.ts', '/p/src/orders.tsx', '/p/src/orders.mts', '/p/test/orders.test.ts'];
/** `'pattern': 'transformer'` or `'pattern': ['transformer', …`, as a jest config's transform writes them. */
const TRANSFORM_ENTRY = /(['"])((?:\\.|(?!\1)[^\\])*)\1\s*:\s*(\[\s*)?(['"])([^'"]+)\4/g;

/**
 * A split such as { '\\.test\\.ts$': 'lockweave/jest', '\\.ts$': 'ts-jest' }: the transformer that
 * does not weave which jest, taking the first pattern that matches, would give a TypeScript file
 * to. Read from the config's text (check runs nothing); entries it cannot read are left out.
 */
function otherJestTransformer(config: string): string | undefined {
  const routes = [...config.matchAll(TRANSFORM_ENTRY)].flatMap((match) => {
    const [, , literal, array, , transformer] = match;
    const lockweave =
      transformer === 'lockweave/jest' ||
      (transformer === 'ts-jest' &&
        array !== undefined &&
        optionsAfter(config, match.index + match[0].length).includes('lockweave/ts-jest'));
    if (!lockweave && !JEST_NOT_WEAVING.includes(transformer)) return [];
    try {
      return [{ pattern: new RegExp(literal.replace(/\\(.)/g, '$1')), transformer, lockweave }];
    } catch {
      return [];
    }
  });
  for (const probe of JEST_PROBES) {
    const route = routes.find(({ pattern }) => pattern.test(probe));
    if (route && !route.lockweave) return route.transformer;
  }
  return undefined;
}

/** The text of an entry's options, from after its transformer's name to the `]` that closes the entry. */
function optionsAfter(config: string, from: number): string {
  let depth = 1;
  for (let at = from; at < config.length; at++) {
    if (config[at] === '[') depth++;
    else if (config[at] === ']' && --depth === 0) return config.slice(from, at);
  }
  return config.slice(from);
}
/** `tsc --noEmit` only type-checks: it writes nothing that could run. */
const writesNothing = (command: string) => /(?:^|\s)--noEmit(?!\s+false)(?=\s|$)/.test(command);
const REGISTER = 'lockweave/register';

const VITE = configFiles('vite.config');
const VITEST = configFiles('vitest.config');

export const TOOLCHAIN_RULES: readonly ToolRule[] = [
  {
    tool: 'tsc (TypeScript >= 7)',
    command: bin('tsc'),
    safe: (use) => writesNothing(use.text) || (use.project.typescriptMajor ?? 0) < 7,
    runsUnlocked: (use) =>
      `TypeScript ${use.project.typescriptVersion}'s tsc is the native compiler: it ignores compilerOptions.plugins and emits every tagged method without its lock, exit 0`,
    fix: 'replace `tsc` with `lockweave build` (same -p), with TypeScript 6 beside 7 to weave with: npm i -D typescript6@npm:typescript@^6',
  },
  {
    tool: 'tsc',
    command: bin('tsc'),
    safe: (use) =>
      writesNothing(use.text) ||
      (use.project.typescriptMajor ?? 0) >= 7 ||
      (use.project.typescriptPatched && use.project.hasPluginEntry(use.text)),
    runsUnlocked:
      "plain tsc runs no transformer plugin (only ts-patch's tspc does): every tagged method is emitted unlocked",
    fix: 'use `tspc` (npm i -D ts-patch) with the plugin entry, or `lockweave build`',
  },
  {
    tool: 'tspc (no plugin entry)',
    command: bin('tspc'),
    safe: (use) => use.project.hasPluginEntry(use.text),
    runsUnlocked: (use) => {
      const others = use.project.otherTransforms(use.text);
      return others.length === 0
        ? 'the tsconfig it compiles has no lockweave plugin entry: tspc weaves nothing'
        : `the tsconfig it compiles names no transformer "lockweave/transformer": its plugin entries name ${others.map((name) => `"${name}"`).join(', ')}. ` +
            "lockweave's routes and this audit know lockweave's entry by that name (or a path into the package) only, so it cannot tell whether one weaves: " +
            "a module that re-exports lockweave's transformer does, but tspc fails the build when that entry sets a prefix or defaults, which the other routes would not read";
    },
    fix: 'name lockweave\'s transformer by its own name in compilerOptions: "plugins": [{ "transform": "lockweave/transformer" }] (with its prefix and defaults)',
  },
  {
    tool: 'tspc (ts-patch missing)',
    command: bin('tspc'),
    safe: (use) => use.project.tsPatchInstalled,
    runsUnlocked: 'ts-patch is not installed, so `tspc` is not the compiler that weaves',
    fix: 'npm i -D ts-patch (3.x for TypeScript 5.x/6.x), or use `lockweave build`',
  },
  {
    // tsc-watch runs the project's tsc (or the one --compiler names) on each change: what tsc does, it does.
    tool: 'tsc-watch',
    command: bin('tsc-watch'),
    safe: (use) =>
      (use.project.typescriptMajor ?? 0) < 7 &&
      (use.project.typescriptPatched || /--compiler[\s=]\S*ts-patch/.test(use.text)) &&
      use.project.hasPluginEntry(use.text),
    runsUnlocked:
      "tsc-watch compiles with the project's plain tsc, which runs no transformer plugin: every tagged method is emitted unlocked (and whatever --onSuccess starts runs them)",
    fix: '`ts-patch install` (tsc then weaves with the plugin entry), or `tsc-watch --compiler ts-patch/compiler/tsc`, or `lockweave build` in a watcher',
  },
  {
    tool: 'tsx',
    command: bin('tsx', 'esno', 'esmo'),
    safe: (use) => use.text.includes(REGISTER),
    runsUnlocked:
      'tsx strips types with esbuild, which drops the @redisLock comments: every tagged method runs unlocked',
    fix: 'node --import lockweave/register --import tsx <file>, or NODE_OPTIONS="--import lockweave/register" tsx <file>',
  },
  {
    tool: 'node <file>.ts',
    command: /(?:^|[\s/])node(?:\s+\S+)*?\s+\S+\.[cm]?tsx?(?=\s|$)/,
    safe: (use) => use.text.includes(REGISTER),
    runsUnlocked:
      "Node's type stripping replaces types by spaces and transforms nothing: every tagged method runs unlocked",
    fix: 'node --import lockweave/register <file>.ts (Node >= 22.15)',
  },
  {
    tool: 'ts-node',
    command: /(?:^|[\s/])(?:ts-node(?:-dev|-esm)?(?=\s|$)|ts-node\/(?:register|esm))/,
    safe: (use) =>
      use.text.includes(REGISTER) ||
      ((/--compiler[\s=]ts-patch\/compiler/.test(use.text) || use.project.tsNodeCompiler === 'ts-patch/compiler') &&
        use.project.hasPluginEntry(use.text)),
    runsUnlocked:
      "ts-node compiles with plain TypeScript unless its compiler is ts-patch's: every tagged method runs unlocked",
    fix: 'tsconfig.json: "ts-node": { "compiler": "ts-patch/compiler" } with the plugin entry, or run with node --import lockweave/register',
  },
  {
    tool: 'vite',
    command: bin('vite'),
    configFiles: VITE,
    safe: mentions('lockweave/vite'),
    runsUnlocked:
      'vite strips types with esbuild/oxc: without the lockweave plugin every tagged method is bundled unlocked',
    fix: "vite.config: import lockweave from 'lockweave/vite'; plugins: [lockweave()]",
  },
  {
    tool: 'vitest',
    command: bin('vitest'),
    configFiles: VITEST,
    // vitest reads vite.config when it has no config of its own, and one that merges it gets its plugins.
    safe: (use) =>
      use.config.includes('lockweave/vite') ||
      ((use.config === '' || /vite\.config/.test(use.config)) &&
        use.project.readConfig(VITE).includes('lockweave/vite')),
    runsUnlocked:
      'vitest transforms with vite: without the lockweave plugin the tests call every tagged method unlocked',
    fix: "vitest.config (or vite.config): import lockweave from 'lockweave/vite'; plugins: [lockweave()]",
  },
  {
    tool: 'rollup',
    command: bin('rollup'),
    configFiles: configFiles('rollup.config'),
    safe: mentions('lockweave/rollup'),
    runsUnlocked:
      "rollup's TypeScript plugins strip or compile types without the weave: every tagged method is bundled unlocked",
    fix: "rollup.config: import lockweave from 'lockweave/rollup'; plugins: [lockweave(), ...]  (before the TypeScript plugin)",
  },
  {
    tool: 'rolldown',
    command: bin('rolldown'),
    configFiles: configFiles('rolldown.config'),
    safe: mentions('lockweave/rolldown'),
    runsUnlocked: 'rolldown strips types itself: without the lockweave plugin every tagged method is bundled unlocked',
    fix: "rolldown.config: import lockweave from 'lockweave/rolldown'; plugins: [lockweave()]",
  },
  {
    tool: 'webpack',
    command: bin('webpack', 'webpack-cli'),
    configFiles: configFiles('webpack.config'),
    safe: mentions('lockweave/webpack'),
    runsUnlocked:
      'ts-loader, babel-loader or swc-loader compile without the weave: every tagged method is bundled unlocked',
    fix: "webpack.config: plugins: [require('lockweave/webpack').default()]",
  },
  {
    tool: 'rspack',
    command: bin('rspack'),
    configFiles: RSPACK_CONFIGS,
    safe: mentions('lockweave/rspack'),
    runsUnlocked: "rspack's builtin:swc-loader strips types without the weave: every tagged method is bundled unlocked",
    fix: "rspack.config: plugins: [require('lockweave/rspack').default()]",
  },
  {
    tool: 'esbuild (command line)',
    command: bin('esbuild'),
    safe: () => false,
    runsUnlocked:
      'esbuild strips types and comments; its command line takes no plugins: every tagged method is bundled unlocked',
    fix: "a build script: esbuild.build({ ..., plugins: [require('lockweave/esbuild').default()] })",
  },
  {
    tool: 'esbuild (build script)',
    configMatters: /['"]esbuild['"]/,
    safe: mentions('lockweave/esbuild'),
    runsUnlocked: 'this script runs esbuild without the lockweave plugin: every tagged method is bundled unlocked',
    fix: "plugins: [require('lockweave/esbuild').default()] in its esbuild.build()/context() options",
  },
  {
    // A file a script runs (`bun build.ts`, `bun run scripts/build.mjs`, `./build.ts` with a bun
    // shebang) that calls Bun's bundler API. lockweave/bun/register, preloaded by the bunfig.toml the
    // bun command reads or imported by the file, puts lockweave's plugin into a Bun.build that lacks
    // it; without it the bundle, JavaScript, holds every tagged method unlocked.
    tool: 'Bun.build (build script)',
    configMatters: /\bBun\s*\.\s*build\s*\(/,
    safe: (use) =>
      (/(['"])lockweave\/bun\1/.test(use.config) && /\bplugins\b/.test(use.config)) ||
      /(['"])lockweave\/bun\/register\1/.test(use.config) ||
      (use.runBy !== undefined &&
        (/(?:^|[\s/])bun(?=\s)/.test(use.runBy) || /^#!.*\bbun\b/.test(use.config)) &&
        bunPreloads({ ...use, text: use.runBy }, '')),
    runsUnlocked:
      'this script runs Bun.build without the lockweave plugin: every tagged method is bundled unlocked (no bunfig.toml preload of lockweave/bun/register adds it)',
    fix: "import lockweave from 'lockweave/bun' and plugins: [lockweave()] in its Bun.build() options",
  },
  {
    tool: 'tsup',
    command: bin('tsup'),
    configFiles: configFiles('tsup.config'),
    safe: mentions('lockweave/esbuild'),
    runsUnlocked: 'tsup bundles with esbuild: without the lockweave plugin every tagged method is bundled unlocked',
    fix: "tsup.config: esbuildPlugins: [require('lockweave/esbuild').default()]",
  },
  {
    tool: 'jest',
    command: bin('jest'),
    configFiles: [...configFiles('jest.config'), 'jest.config.json'],
    packageKey: 'jest',
    // ts-patch's compiler given to ts-jest weaves on some of ts-jest's paths and not others
    // (isolatedModules with a Node module kind; a warm cache runs none), so lockweave's runtime
    // accepts a jest worker only with one of these two (runtime/base/weave-mark.ts).
    safe: (use) =>
      mentions('lockweave/jest', 'lockweave/ts-jest')(use) && otherJestTransformer(use.config) === undefined,
    runsUnlocked: (use) =>
      mentions('lockweave/jest', 'lockweave/ts-jest')(use)
        ? `the jest config also gives files to ${otherJestTransformer(use.config)}, which does not weave: a tagged file its pattern takes runs unlocked (lockweave/jest and the runtime fail the tests that load such a file under jest's rootDir or with a lockweave module, but a test that loads nothing of lockweave passes)`
        : use.config.includes('ts-patch/compiler')
          ? "ts-jest is given ts-patch's compiler, which it skips in isolatedModules mode with a Node module kind: lockweave's runtime refuses these jest workers, so the tests that load it fail"
          : `jest transforms TypeScript with ${/ts-jest/.test(use.config) ? 'ts-jest' : /@swc\/jest/.test(use.config) ? '@swc/jest' : 'babel-jest (its default) or the transform configured'}, which does not weave: lockweave's runtime refuses these jest workers, and a test that never loads it calls tagged methods unlocked`,
    fix: "jest config: transform: { '^.+\\\\.tsx?$': 'lockweave/jest' }  (or keep ts-jest: ['ts-jest', { astTransformers: { before: ['lockweave/ts-jest'] } }])",
  },
  {
    // The Nest CLI compiles with the project's `typescript` API (builder tsc, the default), webpack
    // with ts-loader, rspack, or swc, each project of a monorepo with its own settings over the
    // root's (nest-config.ts reads them as Nest does; nest-holes.ts holds each build to the rule).
    tool: 'nest build',
    command: /(?:^|[\s/])nest\s+(?:build|start)(?=\s|$)/,
    configFiles: NEST_CONFIG_FILES,
    safe: (use) => nestHoles(use).length === 0,
    unlockedParts: nestHoles,
    runsUnlocked: NEST_UNLOCKED,
    fix: NEST_FIX,
  },
  {
    tool: 'vite-node',
    command: bin('vite-node'),
    // It reads vite.config as vite does; the config file alone is vite's use, reported once, as vite's.
    safe: (use) => use.project.readConfig(VITE).includes('lockweave/vite'),
    runsUnlocked: 'vite-node transforms with vite: without the lockweave plugin every tagged method runs unlocked',
    fix: "vite.config: import lockweave from 'lockweave/vite'; plugins: [lockweave()]",
  },
  {
    tool: 'deno',
    command: bin('deno'),
    configFiles: ['deno.json', 'deno.jsonc'],
    safe: () => false,
    runsUnlocked:
      'Deno compiles TypeScript itself and loads no Node loader or plugin of lockweave: every tagged method runs unlocked',
    fix: 'no lockweave route for Deno: build with `lockweave build` or `tspc` and run the JavaScript it writes',
  },
  {
    tool: 'farm',
    command: bin('farm'),
    configFiles: configFiles('farm.config'),
    safe: () => false,
    runsUnlocked:
      'Farm compiles TypeScript with its own Rust compiler, and lockweave has no Farm plugin: every tagged method is bundled unlocked',
    fix: 'bundle with vite, rollup, rolldown, esbuild, webpack or rspack and the lockweave plugin, or compile with `lockweave build`',
  },
  {
    tool: 'TypeScript runners and compilers without a lockweave route',
    command: bin('sucrase', 'sucrase-node', 'jiti', 'ncc', 'parcel', 'tsimp', 'ts-blank-space'),
    safe: () => false,
    runsUnlocked:
      'it strips or compiles types without the weave (sucrase, jiti, ncc, parcel, tsimp, ts-blank-space): every tagged method runs unlocked',
    fix: 'compile with `lockweave build` or `tspc`, run with node --import lockweave/register, or bundle through a lockweave plugin',
  },
  {
    tool: 'swc',
    command: bin('swc', 'swcx'),
    configFiles: ['.swcrc'],
    safe: () => false,
    runsUnlocked:
      'swc strips types without the weave and has no lockweave route: every tagged method is emitted unlocked',
    fix: 'compile with `lockweave build` or `tspc`, or bundle through a lockweave plugin; for jest use lockweave/jest',
  },
  {
    tool: 'babel (preset-typescript)',
    configFiles: [
      'babel.config.js',
      'babel.config.cjs',
      'babel.config.mjs',
      'babel.config.json',
      '.babelrc',
      '.babelrc.json',
      '.babelrc.js',
    ],
    configMatters: /preset-typescript/,
    safe: () => false,
    runsUnlocked:
      "babel's TypeScript preset strips types without the weave: every tagged method it compiles runs unlocked",
    fix: 'compile TypeScript with `lockweave build` or `tspc`; for jest use lockweave/jest',
  },
  {
    tool: 'bun <file>.ts',
    command: /(?:^|[\s/])bun(?!(?:\s+-\S+)*\s+(?:test|build)(?=\s|$))\s+(?:\S+\s+)*?\S+\.[cm]?tsx?(?=\s|$)/,
    safe: (use) => bunPreloads(use, ''),
    runsUnlocked:
      'bun transpiles TypeScript itself, without the weave, unless bunfig.toml preloads lockweave/bun/register: every tagged method runs unlocked',
    fix: 'bunfig.toml: preload = ["lockweave/bun/register"]',
  },
  {
    tool: 'bun test',
    command: /(?:^|[\s/])bun(?:\s+-\S+)*\s+test(?=\s|$)/,
    safe: (use) => bunPreloads(use, 'test'),
    runsUnlocked:
      "bun test transpiles the tests' TypeScript itself unless bunfig.toml's [test] section preloads lockweave/bun/register (the top-level preload is not used by bun test): the tests call every tagged method unlocked",
    fix: 'bunfig.toml: [test] preload = ["lockweave/bun/register"]',
  },
  {
    tool: 'bun build',
    command: /(?:^|[\s/])bun(?:\s+-\S+)*\s+build(?=\s)(?=.*\.[cm]?tsx?(?:\s|$))/,
    safe: () => false,
    runsUnlocked: "bun build's command line takes no plugins: every tagged method is bundled unlocked",
    fix: "a build script: await Bun.build({ entrypoints, outdir, plugins: [lockweave()] }) with import lockweave from 'lockweave/bun'",
  },
];

const BUN_REGISTER = 'lockweave/bun/register';

/**
 * Whether the bunfig.toml a bun command reads (`--config`/`-c`, else bunfig.toml) preloads
 * lockweave's Bun plugin in `section`: the top level for bun run, `[test]` for bun test.
 */
function bunPreloads(use: Use, section: '' | 'test'): boolean {
  const named = /(?:^|\s)(?:--config|-c)[\s=]+(\S+)/.exec(use.text)?.[1]?.replace(/^['"]|['"]$/g, '');
  const toml = withoutComments(use.project.readConfig([named ?? 'bunfig.toml']));
  // The top level is the text before the first table header; `[test]` runs to the next header.
  const parts = toml.split(/^[ \t]*(?=\[)/m);
  const isTable = (part: string) => /^\s*\[/.test(part);
  const top = isTable(parts[0]) ? '' : parts[0];
  const body = section === '' ? top : (parts.find((part) => /^\s*\[\s*test\s*\]/.test(part)) ?? '');
  const preload = /(?:^|\n)[ \t]*preload[ \t]*=[ \t]*(\[[^\]]*\]|"[^"]*"|'[^']*')/.exec(body)?.[1] ?? '';
  return preload.includes(`"${BUN_REGISTER}"`) || preload.includes(`'${BUN_REGISTER}'`);
}

/** TOML text without its comments (`#` to the end of the line, outside strings). */
function withoutComments(toml: string): string {
  return toml.replace(/"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|#[^\n]*/g, (match) => (match.startsWith('#') ? '' : match));
}

/** Printed with every audit: what a reading of the project's files cannot know. */
export const AUDIT_BLIND_SPOTS =
  "The audit reads package.json scripts, the tsconfig, the tools' config files and the esbuild and Bun.build scripts a script runs. It cannot see shell scripts, CI files, Dockerfiles, NODE_OPTIONS set outside a script, tools started from code, or other packages of a monorepo: run `lockweave verify <output>` after each build to catch what it misses.";
