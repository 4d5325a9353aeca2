// The onLoad step of esbuild's plugin (lockweave/esbuild) and Bun's (bun-plugin.ts): tools that
// ask their plugins to load each file, where the rollup-style tools ask them to transform it
// (bundler-hooks.ts). Each TypeScript file is read once, by lockweave: a tagged one goes back
// woven, with its map inline, which the tool composes into its own.
//
// Both tools ask the plugins' onLoad callbacks in order and take the first answer: a plugin listed
// before lockweave's that loads TypeScript files answers for them, and lockweave's is never asked.
// The build's metafile says what it bundled, and its end finds such a file (strippedInputs).
//
// What is TypeScript is the tool's to say: every file it compiles with its `ts` or `tsx` loader,
// whatever the name (`loader: { '.svc': 'ts' }`), is loaded and woven, and the build's end judges
// each input by the build's loader table (build-loaders.ts) — and a tagged file under a name the
// table leaves to no code loader (a plugin's onLoad answered `loader: 'ts'` for it) as unwoven code.
//
// Only TypeScript: a project's own JavaScript (allowJs: tspc weaves it) is refused, not woven.
// esbuild's filter is a Go regular expression, without lookahead: taking JavaScript would call from
// Go into JavaScript for every file of every package the build bundles (in-process, +25 ms for a
// bundle holding ioredis, +55-60 ms for a Nest app's packages). Bun's filter can leave node_modules
// out, but its runtime must answer every file its filter takes, and a CommonJS file answered with
// its own text does not run (Bun 1.4). So the build's end reads the project's own JavaScript
// inputs, once each: a tagged one fails the build, naming the fix (unwovenJavaScript).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  hasOtherCompiledName,
  isCompiledSource,
  isProjectFile,
  TYPESCRIPT_FILE,
} from '../../runtime/base/loaded-typescript';
import { mayHoldTag } from '../parse/find-tags';
import { esbuildLoaders, type LoaderMap, parsedLoaderOf, type SourceKind, sourceKindOf } from './build-loaders';
import { isWeavable, strippedError, weave, type LockweaveBundlerOptions } from './bundler-hooks';
import { refuseUnwovenName, tagsWeaveOnDisk } from './tags-on-disk';
import type { CachedWeave } from './woven-cache';

/**
 * esbuild's plugin, written for esbuild directly: through unplugin it cost a plain build of 85 ms
 * another ~55 ms (loading unplugin ~25 ms, and a second read of every file in JavaScript). It
 * reads each file esbuild compiles as TypeScript once; a file without a tag goes back to esbuild untouched (undefined), a
 * tagged one comes back woven, with its map inline, which esbuild composes into the bundle's.
 * The build keeps a metafile, so that its end can find a file another plugin loaded in
 * lockweave's place (strippedInputs).
 */
export function esbuildPlugin(options: LockweaveBundlerOptions | undefined): EsbuildPlugin {
  return {
    name: 'lockweave',
    setup(build) {
      /** Files lockweave's onLoad read (esbuild's incremental rebuilds may answer from their cache). */
      const loaded = new Set<string>();
      const dir = build.initialOptions.absWorkingDir ?? process.cwd();
      build.initialOptions.metafile = true;
      const loaders = esbuildLoaders(build.initialOptions.loader);
      const stdin = weaveStdin(build.initialOptions.stdin, dir, options);
      if (stdin !== undefined) loaded.add(stdin);
      build.onLoad({ filter: loaders.filter }, (args) => {
        // A module of another plugin's namespace is that plugin's to load: its path need not be a
        // file, nor its text the file's. The build's end judges it (strippedInputs).
        if (args.namespace !== undefined && args.namespace !== 'file') return undefined;
        const loader = loaders.loaderOf(args.path);
        if (loader !== 'ts' && loader !== 'tsx') return undefined; // a longer extension made it something else
        loaded.add(args.path);
        return loadWoven(args.path, options, loader);
      });
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        const error = strippedInputs(
          result.metafile,
          loaded,
          (file) => sourceKindOf(file, loaders.loaderOf(file)),
          dir,
          build.initialOptions.write === false ? undefined : dir,
        );
        if (!error) return;
        // A plain build() rejects with the error without printing it (a context prints it too).
        if (build.initialOptions.logLevel !== 'silent')
          process.stderr.write(`✘ [ERROR] ${error.message} [plugin lockweave]\n\n`);
        throw error;
      });
    },
  };
}

/** A build's record of what it read and wrote, as esbuild and Bun.build keep it (`metafile: true`). */
export interface Metafile {
  readonly inputs: Record<string, unknown>;
  readonly outputs: Record<string, unknown>;
}

/**
 * At the end of a build whose plugins load files (esbuild, Bun.build), which asks the plugins'
 * onLoad callbacks in order and takes the first answer: a plugin listed before lockweave's that
 * loads TypeScript files answers for them, and lockweave's is never asked. Each input is judged by
 * what the build's loader table compiles it as (`kindOf`), and a project file the table gives no
 * code loader, under a name neither JavaScript nor data, as code another plugin's onLoad compiled
 * (the metafile does not record the loader a plugin chose). Every source input lockweave's onLoad
 * did not load — TypeScript another plugin loaded first, the project's own JavaScript, which it
 * does not load, or such a file — is read once, and TypeScript another plugin served in its own
 * namespace with no file to read counts as tagged (its text is unknown); if one has tags, the files
 * the build wrote under `outputDir` (both tools write before the end callbacks run; undefined when
 * they wrote nothing) are removed — as the tools write nothing on errors of their own — and the
 * error naming the inputs is returned.
 */
export function strippedInputs(
  metafile: Metafile | undefined,
  loaded: ReadonlySet<string>,
  kindOf: (file: string) => SourceKind,
  inputDir: string,
  outputDir: string | undefined,
): Error | undefined {
  // Asked for by the plugin's setup: without it, the tool could not say what it bundled.
  if (!metafile)
    return new Error('lockweave: the build kept no metafile, so lockweave cannot check that it wove every tagged file');
  const inputs = Object.keys(metafile.inputs).map((input) => inputOf(inputDir, input));
  const files = inputs.filter((input) => input.namespace === undefined).map((input) => input.file);
  const unwoven = files.filter((file) => kindOf(file) !== undefined && !loaded.has(file) && tagsWeaveOnDisk(file));
  // TypeScript files lockweave's onLoad, which takes every one in the `file` namespace, was never
  // asked for: a plugin before it answered, with text lockweave never saw — whatever the file on
  // disk holds (the plugin may serve another text for it, or a path with no file). Only lockweave
  // first among the plugins that load TypeScript makes what it reads what is bundled.
  const unseen = files.filter((file) => kindOf(file) === 'typescript' && !loaded.has(file) && !unwoven.includes(file));
  // A file another plugin loaded in a namespace of its own (an inline worker, say): lockweave's
  // onLoad takes the `file` namespace only, so a file there with tags on disk went out unwoven.
  for (const input of inputs)
    if (
      input.namespace !== undefined &&
      readable(input.file) &&
      kindOf(input.file) !== undefined &&
      tagsWeaveOnDisk(input.file)
    )
      unseen.push(input.name);
  // A project file under a name that is neither JavaScript nor data, which the build's table gives
  // no code loader (`.svc`), yet the build bundled: another plugin's onLoad chose its loader
  // (`{ contents, loader: 'ts' }`), which the metafile does not record, and lockweave's onLoad,
  // whose filter is the build's table, was never asked. Tags on disk mean code it never saw.
  const compiledElsewhere = files.filter(
    (file) =>
      kindOf(file) === undefined &&
      !loaded.has(file) &&
      isProjectFile(file) &&
      isCompiledSource(file) &&
      tagsWeaveOnDisk(file),
  );
  // TypeScript another plugin made in its own namespace, with no file to read: what it held is unknown.
  const unread = inputs
    .filter((input) => input.namespace !== undefined && kindOf(input.file) === 'typescript' && !readable(input.file))
    .map((input) => input.name);
  if (unwoven.length + unread.length + unseen.length + compiledElsewhere.length === 0) return undefined;
  if (outputDir !== undefined)
    for (const output of Object.keys(metafile.outputs)) fs.rmSync(path.resolve(outputDir, output), { force: true });
  const stripped = unwoven.filter((file) => kindOf(file) === 'typescript');
  const javaScript = unwoven.filter((file) => kindOf(file) === 'javascript');
  const errors = [
    ...(stripped.length > 0 ? [strippedError(...stripped)] : []),
    ...(javaScript.length > 0 ? [unwovenJavaScript(javaScript)] : []),
    ...(unread.length > 0 ? [unreadTypeScript(unread)] : []),
    ...(unseen.length > 0 ? [loadedByAnotherPlugin(unseen)] : []),
    ...(compiledElsewhere.length > 0 ? [compiledByAnotherPlugin(compiledElsewhere)] : []),
  ];
  return errors.length === 1 ? errors[0] : new Error(errors.map((error) => error.message).join('\n'));
}

/** The error of TypeScript modules a plugin loaded from elsewhere than a file: lockweave cannot see their tags. */
function unreadTypeScript(names: readonly string[]): Error {
  const [them, their] = names.length > 1 ? ['them', 'their'] : ['it', 'its'];
  return new Error(
    `lockweave: the build bundled ${names.join(', ')}, TypeScript that a plugin loaded in a namespace of its own from no file on disk, ` +
      `so lockweave could not read ${them} to weave ${their} @redisLock tags, and ${their} tagged methods would run unlocked. ` +
      'Have that plugin resolve such modules to their files (the `file` namespace), or write the text it makes to a .ts file and import that.',
  );
}

/** The error of TypeScript files a plugin listed before lockweave's loaded: lockweave never saw the text bundled. */
function loadedByAnotherPlugin(files: readonly string[]): Error {
  const [them, their] = files.length > 1 ? ['them', 'their'] : ['it', 'its'];
  return new Error(
    `lockweave: ${files.join(', ')} ${files.length > 1 ? 'were' : 'was'} loaded by a plugin listed before lockweave's (or in a namespace of its own), ` +
      `so lockweave never saw the text the build bundled for ${them} and cannot tell whether ${their} methods carry @${'redisLock'} tags that ` +
      "would run unlocked. List lockweave's plugin before every plugin that loads TypeScript files, and have plugins resolve TypeScript files to the file namespace.",
  );
}

/** The error of tagged files a plugin compiled as code under a name the build's loader table gives no code loader. */
function compiledByAnotherPlugin(files: readonly string[]): Error {
  const [holds, them, their] = files.length > 1 ? ['hold', 'them', 'their'] : ['holds', 'it', 'its'];
  return new Error(
    `lockweave: ${files.join(', ')} ${holds} @${'redisLock'} tags, and the build bundled ${them} as code under a name its \`loader\` option ` +
      `does not map to ts: a plugin compiled ${them} (its onLoad chose the loader) from text lockweave never saw, so ${their} methods ` +
      "would run unlocked. Map the extension to ts in the build's `loader` option (lockweave then weaves it) and list lockweave's plugin " +
      'before that plugin, or rename the file to .ts.',
  );
}

/** True when `file` is a file that can be read (a plugin's namespace path may name none). */
function readable(file: string): boolean {
  try {
    return path.isAbsolute(file) && fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The error of tagged JavaScript files the build bundled: these plugins load TypeScript only (above). */
function unwovenJavaScript(files: readonly string[]): Error {
  const [holds, them, their] = files.length > 1 ? ['hold', 'them', 'their'] : ['holds', 'it', 'its'];
  return new Error(
    `lockweave: ${files.join(', ')} ${holds} @redisLock tags, but lockweave's esbuild and Bun plugins weave TypeScript files only, ` +
      `so ${their} methods would run unlocked. Rename ${them} to .ts (or .mts, .cts), or build with tspc (the "lockweave/transformer" ` +
      'tsconfig plugin, which weaves allowJs files too) and bundle what it writes.',
  );
}

/**
 * A metafile input: a path relative to the working directory (the `file` namespace), or
 * `namespace:path` (another plugin's), its suffix (`?raw`, `#x`) aside: the tool gives a query no
 * meaning of its own (the loader decides), so `./pay.ts?raw` is the file, code like any other.
 */
function inputOf(dir: string, name: string): { name: string; file: string; namespace?: string } {
  const namespaced = /^([a-z][\w-]*):(.*)$/i.exec(name);
  if (namespaced && namespaced[1] !== 'file')
    return { name, file: namespaced[2].replace(/[?#].*$/, ''), namespace: namespaced[1] };
  return { name, file: path.resolve(dir, (namespaced ? namespaced[2] : name).replace(/[?#].*$/, '')) };
}

/**
 * esbuild's stdin: no plugin loads it, so lockweave weaves it here, before the build starts, as
 * the file it names (`sourcefile` in `resolveDir`: its tsconfig gives the lock's settings). Returns
 * that file, for the build's end; undefined when stdin holds no tag text. Tag text in stdin that
 * esbuild reads as JavaScript (its default loader) fails the build: these plugins weave TypeScript.
 */
function weaveStdin(
  stdin: EsbuildStdin | undefined,
  dir: string,
  options: LockweaveBundlerOptions | undefined,
): string | undefined {
  if (!stdin || stdin.contents === undefined) return undefined;
  const code = typeof stdin.contents === 'string' ? stdin.contents : Buffer.from(stdin.contents).toString('utf8');
  if (!mayHoldTag(code)) return undefined;
  const name = stdin.sourcefile ?? '<stdin>';
  if (stdin.loader !== 'ts' && stdin.loader !== 'tsx') {
    throw new Error(
      `lockweave: the build's stdin (${name}) holds @${'redisLock'} tags, but esbuild reads it as ${stdin.loader ?? 'js'}, and lockweave's esbuild plugin ` +
        "weaves TypeScript only, so its methods would run unlocked. Give stdin loader: 'ts', or write it to a .ts file and build that.",
    );
  }
  // esbuild names stdin in the metafile by this path (relative to the working directory).
  const base = path.resolve(dir, stdin.resolveDir ?? '.', name);
  const file = TYPESCRIPT_FILE.test(base) ? base : `${base}.${stdin.loader}`;
  const woven = weave(file, code, options);
  if (woven.code !== code) stdin.contents = woven.code + inlineMap(woven.map);
  return base;
}

/** A woven text's map as an inline comment, which the tool composes into its own. */
function inlineMap(map: CachedWeave['map']): string {
  return map
    ? `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`
    : '';
}

export interface LoadedTypeScript {
  contents: string;
  loader: 'ts' | 'tsx';
  watchFiles: string[];
}

/**
 * What an esbuild-style onLoad returns for a file the tool compiles with `loader` (TypeScript: by
 * its name, or by the build's loader table), from one read of it: the woven text with its map inline
 * (which the tool composes into its own) when the file holds a tag; else, with `asRead`, the file as
 * it was read (Bun's runtime wants an answer for every file), without it undefined (the tool loads
 * the file as it would have). A tagged file weaveSource would parse otherwise than the tool compiles
 * it (JSX outside a .tsx name) fails the build, naming the rename.
 */
export function loadWoven(
  file: string,
  options: LockweaveBundlerOptions | undefined,
  loader: 'ts' | 'tsx',
  asRead: true,
): LoadedTypeScript;
export function loadWoven(
  file: string,
  options: LockweaveBundlerOptions | undefined,
  loader: 'ts' | 'tsx',
): LoadedTypeScript | undefined;
export function loadWoven(
  file: string,
  options: LockweaveBundlerOptions | undefined,
  loader: 'ts' | 'tsx',
  asRead = false,
): LoadedTypeScript | undefined {
  // Compiled as TypeScript by the tool's word: woven whatever the name, declaration files aside —
  // one the tool compiles as code anyway (`import './pay.d.ts'`) is refused when it holds tags.
  const weavable = TYPESCRIPT_FILE.test(file) ? isWeavable(file) : true;
  if (!weavable) refuseUnwovenName(file, 'The build', hasOtherCompiledName);
  if (!weavable && !asRead) return undefined;
  const code = fs.readFileSync(file, 'utf8');
  if (!weavable || !mayHoldTag(code)) return asRead ? { contents: code, loader, watchFiles: [] } : undefined;
  if (parsedLoaderOf(file) !== loader) {
    if (!tagsWeaveOnDisk(file)) return asRead ? { contents: code, loader, watchFiles: [] } : undefined;
    throw misnamedError(file, loader);
  }
  const woven = weave(file, code, options);
  return {
    contents: woven.code + inlineMap(woven.map),
    loader,
    watchFiles: [...(woven.configFiles ?? [])],
  };
}

/** The error of a tagged file the tool compiles as `loader` under a name lockweave's weave reads as another kind of code. */
function misnamedError(file: string, loader: 'ts' | 'tsx'): Error {
  const wanted = loader === 'tsx' ? '.tsx' : '.ts (or .mts, .cts)';
  return new Error(
    `lockweave: ${file} holds @${'redisLock'} tags and the build compiles it with the ${loader} loader, but lockweave reads a file ` +
      `as TypeScript by its name (JSX only in .tsx), so it cannot weave ${path.basename(file)} as the build compiles it, and its methods ` +
      `would run unlocked. Rename it to ${wanted}.`,
  );
}

/** The part of esbuild's plugin API this plugin uses (esbuild is not a dependency). */
interface EsbuildPlugin {
  name: string;
  setup(build: {
    readonly initialOptions: {
      metafile?: boolean;
      loader?: LoaderMap;
      absWorkingDir?: string;
      logLevel?: string;
      write?: boolean;
      stdin?: EsbuildStdin;
    };
    onLoad(
      options: { filter: RegExp },
      callback: (args: { path: string; namespace?: string }) => LoadedTypeScript | undefined,
    ): void;
    onEnd(callback: (result: EsbuildResult) => void): void;
  }): void;
}

/** esbuild's `stdin` option: the entry's text, handed to no plugin. */
interface EsbuildStdin {
  contents?: string | Uint8Array;
  loader?: string;
  sourcefile?: string;
  resolveDir?: string;
}

/** The part of esbuild's build result the end callback reads. */
interface EsbuildResult {
  readonly errors: readonly unknown[];
  readonly metafile?: Metafile;
}
