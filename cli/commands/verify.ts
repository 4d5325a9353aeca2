// `lockweave verify <output…>`: did the build really weave? Every tagged method of the project's
// sources leaves `defineLock({ site: "OrderService.pay", businessFlag: "payOrder", … })` in what a
// weaving build writes — tspc, lockweave build, the bundler plugins, ESM or CommonJS
// (`lockweave_1.defineLock(…)`). Bundlers merge files and minifiers rename identifiers, but neither
// changes the values of literals, so each tagged method is looked up by the whole spec its tag
// implies — site, businessFlag and every option the tag or the plugin's defaults set (prefix,
// lockTime, retries, …) — among the lock specs the output's JavaScript really creates
// (lock-sites.ts: parsed calls, never text in a comment or a string), one call per method. The site
// alone is short and collides (`Class.method`, a bare function name): a bundled dependency's own
// woven `OrderService.pay`, or a stale build's spec with another prefix, must not stand in.
//
// What it proves: each tagged method's lock spec is created by the output, as often as the method
// is tagged. What it cannot: that the method's body calls that lock (a minifier renames methods),
// or that the files checked are the ones deployed; a spec equal in every value (a bundled package's
// lock of the same site, flag and options) still stands in. The weave itself decides what a body holds.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownTypeScript } from '../../transformer/typescript';
import { CliError } from '../cli-error';
import { PROJECT_FLAG, type Command, type ParsedArgs } from '../command';
import { formatDiagnostics, plural, pluginOptions, readProject, tsconfigPath } from '../project';
import { lockSpecsIn, specKey, type LockSpec, type SpecValue } from '../lock-sites';
import { tagReport, type TaggedMethod } from '../tagged-methods';
import { printArgument } from '../without-credentials';

export const verify: Command = {
  name: 'verify',
  summary: 'confirm that every tagged method of the sources was woven into the built output',
  synopsis: 'lockweave verify <output dir or file>... [-p <tsconfig>]',
  flags: [PROJECT_FLAG],
  operands: { min: 1, max: Infinity, name: '<output dir or file>' },
  details: [
    "Finds the tagged methods of the tsconfig's sources (ignored and erroneous tags are not locks) and",
    'looks up each one among the lock specs that the JavaScript files (.js .mjs .cjs .jsx) under the',
    'given directories and files create: parsed `defineLock({ site: … })` calls whose values are the ones',
    'its tag implies (site "Class.method", businessFlag, and every option the tag or the plugin\'s defaults',
    'set: prefix, lockTime, retries, …), one call per tagged method; a spec with another businessFlag or',
    'option does not count, nor does text in comments and strings. .map, .d.ts and other files are ignored.',
    'An output file laid out as the build of a tagged source (dist/cjs/orders.js for src/orders.ts) must lock',
    'each tagged method of that source itself: a woven build beside an unwoven one fails at the unwoven file.',
    'Works on tsc/tspc output, bundles and minified bundles. A tsconfig that lists sources a bundle does',
    'not include reports them missing: point -p at a tsconfig for that bundle.',
    '',
    'Exit: 0 every tagged method is woven; 1 a method is missing (each listed with its source file:line)',
    'or a tag has an error; 2 bad command line.',
    '',
    'Examples:',
    '  lockweave verify dist',
    '  lockweave verify dist/server.mjs -p tsconfig.server.json',
  ].join('\n'),
  run: runVerify,
};

function runVerify(args: ParsedArgs): number {
  const configFile = tsconfigPath(args.flags.project);
  const tsApi = ownTypeScript(path.dirname(configFile));
  const project = readProject(tsApi, configFile);
  // Each source on its own, no type check: the weave's analysis finds the same locks, quickly.
  const files = project.parsed.fileNames
    .filter((name) => !name.endsWith('.d.ts') && /\.[cm]?tsx?$/.test(name))
    .map((name) => tsApi.createSourceFile(name, fs.readFileSync(name, 'utf8'), tsApi.ScriptTarget.Latest, true));
  const tags = tagReport(tsApi, files, pluginOptions(project));

  const outputs = args.operands.flatMap((operand) => javaScriptFiles(path.resolve(operand), operand));
  if (outputs.length === 0)
    throw new CliError(`no JavaScript file (.js .mjs .cjs .jsx) in ${args.operands.map(printArgument).join(', ')}`);
  // Found specs by their values, and by site for telling why a method's site did not match.
  const found = new Map<string, number>();
  const bySite = new Map<string, LockSpec[]>();
  const inFile = new Map<string, Set<string>>();
  for (const file of outputs) {
    const keys = new Set<string>();
    for (const spec of lockSpecsIn(tsApi, file, fs.readFileSync(file, 'utf8'))) {
      if (spec.options) {
        const key = specKey(spec.options);
        found.set(key, (found.get(key) ?? 0) + 1);
        keys.add(key);
      }
      bySite.set(spec.site, [...(bySite.get(spec.site) ?? []), spec]);
    }
    inFile.set(file, keys);
  }
  const unlockedOutputs = outputsMissingTheirSource(
    outputs,
    files.map((file) => file.fileName),
    tags.methods,
    inFile,
  );

  // Two methods with one spec (one site, the same tag) need two calls.
  const missing: TaggedMethod[] = [];
  const expected = new Map<string, TaggedMethod[]>();
  for (const method of tags.methods) {
    const key = specKey(method.spec);
    expected.set(key, [...(expected.get(key) ?? []), method]);
  }
  for (const [key, methods] of expected) missing.push(...methods.slice(found.get(key) ?? 0));

  if (tags.errors.length) console.error(formatDiagnostics(tsApi, tags.errors));
  if (missing.length) {
    console.error(
      `lockweave verify: ${plural(missing.length, 'tagged method')} NOT woven into ${args.operands.map(printArgument).join(', ')} — the build that wrote it runs them unlocked:`,
    );
    for (const method of missing) {
      console.error(`  ${method.where} - ${method.site}`);
      const other = (bySite.get(method.site) ?? []).find(
        (spec) => !spec.options || specKey(spec.options) !== specKey(method.spec),
      );
      if (other)
        console.error(`      the output's lock spec of that site is another: ${difference(other, method.spec)}`);
    }
    console.error(
      'Build with a lockweave route (tspc with the plugin entry, lockweave build, a lockweave bundler plugin); `lockweave check` shows which part of the toolchain skips it.',
    );
  }
  for (const { output, source, methods } of unlockedOutputs) {
    console.error(
      `lockweave verify: ${printArgument(path.relative(process.cwd(), output))}, laid out as the build of ${path.relative(process.cwd(), source)}, ` +
        `does not lock ${plural(methods.length, 'tagged method')} of it — the build that wrote it (one of several into these folders, or an old one left there) runs them unlocked:`,
    );
    for (const method of methods) console.error(`  ${method.where} - ${method.site}`);
  }
  const woven = tags.methods.length - missing.length;
  console.log(
    `lockweave verify: ${woven} of ${plural(tags.methods.length, 'tagged method')} woven, in ${plural(outputs.length, 'JavaScript file')}`,
  );
  return missing.length > 0 || unlockedOutputs.length > 0 || tags.errors.length > 0 ? 1 : 0;
}

/**
 * Output files laid out as a compiler lays out a source — its path below the sources' common
 * folder, as .js, .mjs or .cjs, anywhere under an operand — each lock every tagged method of that
 * source: the count above is over all outputs, so one weaving build would otherwise stand in for
 * another that did not weave (an ESM and a CommonJS build side by side, a build left from before).
 * Each output is read as the build of the source whose path it ends with in the most folders
 * (`orders/index.js` is `src/orders/index.ts`'s, not `src/index.ts`'s); one that ends with none
 * (a bundle, `server.mjs`) is left to the count.
 */
function outputsMissingTheirSource(
  outputs: readonly string[],
  sources: readonly string[],
  methods: readonly TaggedMethod[],
  inFile: ReadonlyMap<string, ReadonlySet<string>>,
): { output: string; source: string; methods: TaggedMethod[] }[] {
  const root = commonFolder(sources);
  const stems = sources.map((source) => ({
    source,
    segments: path
      .relative(root, source)
      .replace(/\.[cm]?tsx?$/, '')
      .split(path.sep),
  }));
  const lacking: { output: string; source: string; methods: TaggedMethod[] }[] = [];
  for (const output of outputs) {
    const segments = path
      .resolve(output)
      .replace(/\.(?:[cm]?js|jsx)$/, '')
      .split(path.sep);
    const endsWith = (stem: readonly string[]) =>
      stem.length <= segments.length &&
      stem.every((segment, i) => segments[segments.length - stem.length + i] === segment);
    let best: (typeof stems)[number] | undefined;
    for (const stem of stems)
      if (endsWith(stem.segments) && stem.segments.length > (best?.segments.length ?? 0)) best = stem;
    if (!best) continue;
    const keys = inFile.get(output) ?? new Set<string>();
    const unlocked = methods.filter((method) => method.file === best.source && !keys.has(specKey(method.spec)));
    if (unlocked.length) lacking.push({ output, source: best.source, methods: unlocked });
  }
  return lacking;
}

/** The deepest folder that holds every one of `files` (a compiler's default rootDir). */
function commonFolder(files: readonly string[]): string {
  if (files.length === 0) return process.cwd();
  let common = path.dirname(path.resolve(files[0]!)).split(path.sep);
  for (const file of files) {
    const parts = path.dirname(path.resolve(file)).split(path.sep);
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.join(path.sep) || path.sep;
}

/** `businessFlag "acmePay" (the tag: "payOrder"), prefix unset (the tag: "CLI_")`. */
function difference(spec: LockSpec, wanted: Readonly<Record<string, SpecValue>>): string {
  if (!spec.options) return 'a value that is not a literal';
  const options = spec.options;
  const show = (value: SpecValue | undefined) => (value === undefined ? 'unset' : JSON.stringify(value));
  return [...new Set([...Object.keys(wanted), ...Object.keys(options)])]
    .filter((name) => options[name] !== wanted[name])
    .map((name) => `${name} ${show(options[name])} (the tag: ${show(wanted[name])})`)
    .join(', ');
}

function javaScriptFiles(target: string, operand: string): string[] {
  if (!fs.existsSync(target)) throw new CliError(`${printArgument(operand)}: no such file or directory`);
  if (fs.statSync(target).isFile()) return isJavaScript(target) ? [target] : [];
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    // Bounded: a link cycle in an output directory must not hang a CI step.
    if (depth > 50) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(full, depth + 1);
      else if (entry.isFile() && isJavaScript(full)) files.push(full);
    }
  };
  walk(target, 0);
  return files;
}

function isJavaScript(file: string): boolean {
  return /\.(?:[cm]?js|jsx)$/.test(file);
}
