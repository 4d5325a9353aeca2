// What the Node loader and the jest transformer read from the project: the nearest tsconfig.json,
// with its `extends` chain, parsed by lockweave's own TypeScript 6 (JSON with comments, as tsc
// reads it). Two things come out of it:
//   - the options of the "lockweave/transformer" plugin entry (`prefix`, `defaults`), so a method
//     locks the same key whichever route built it: tspc and these routes read one entry;
//   - the compiler options, which jest's transpile needs (decorators, jsx, target).
// A tsconfig that cannot be read is an error, not "no options": a lost `prefix` would lock a
// different key than the rest of the system does, and the two would not exclude each other.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { optionsEntry, settingsNote, settingsText } from '../plugin-entry';
import { ownTypeScript } from '../typescript';
import { nearestTsconfigOf, projectKey, siblingConfigs } from './nearest-tsconfig';

export interface ProjectConfig {
  /** Absolute path of the tsconfig read; undefined when there is none up to the root. */
  readonly configFile: string | undefined;
  /** Whether it (or its `extends` chain) has a lockweave plugin entry. */
  readonly hasEntry: boolean;
  /** The tsconfig files of the projects it references (`references`). */
  readonly references: readonly string[];
  /** That file and every file its `extends` chain read: what the options depend on. */
  readonly configFiles: readonly string[];
  /**
   * Where a package an `extends` names is not, and would be found first if it appeared (a
   * node_modules nearer than the one it was found in): what the options depend on too.
   */
  readonly shadowedBy: readonly string[];
  /**
   * The marker that decided the project's root (its .git, or its highest package.json), when an
   * enclosing tsconfig was looked for: its removal moves the root, and the options may change.
   */
  readonly present?: readonly string[];
  /**
   * Why no entry can be told for a tagged file here, when none can: its own project has none, and
   * a project above with one does not list it — tsc builds a file a listed one imports all the same,
   * with that entry. A route refuses to weave tags with the defaults then (undecidedError).
   */
  readonly undecided?: string;
  /** The weaving entry's `prefix` and `defaults`, as written (weaveSource checks them). */
  readonly plugin: { readonly prefix?: unknown; readonly defaults?: unknown };
  readonly compilerOptions: ts.CompilerOptions;
}

const NO_PROJECT: ProjectConfig = {
  configFile: undefined,
  hasEntry: false,
  references: [],
  configFiles: [],
  shadowedBy: [],
  plugin: {},
  compilerOptions: {},
};

const byConfigFile = new Map<string, ProjectConfig>();

/**
 * What a nearest tsconfig.json says for the files under it: `config`, the agreed one; and where
 * none of the configs read with it has an entry, the enclosing configs with an entry, which give
 * it to a file they include.
 */
interface NearestProject {
  readonly config: ProjectConfig;
  readonly enclosing: readonly ProjectConfig[];
}

/**
 * What an answer was read from: each config file whose text it parsed, the paths whose absence or
 * presence it depends on, and the names of the tsconfig files beside it and above (projectKey). A
 * long-running process (a dev server, `tspc --watch`, jest's watch) asks again after the user
 * edits a config: an answer whose sources changed is read again, else it would weave with the
 * settings of before — another key than tspc's, or a new process's.
 */
interface ReadFrom {
  readonly files: readonly string[];
  readonly absent: readonly string[];
  readonly present: readonly string[];
  readonly beside: string;
}

/** Each config file's text as this process last parsed it (undefined: none was there), and the reader it came from. */
const parsedTexts = new Map<string, { readonly text: string | undefined; readonly readFile: ReadFile }>();
type ReadFile = (file: string) => string | undefined;
/** The config files the answer being made reads, cached ones included. */
let reading: Set<string> | undefined;

const byNearest = new Map<string, { readonly project: NearestProject; readonly readFrom: ReadFrom }>();

/** By nearest tsconfig and the enclosing configs that include the file: one answer per pair. */
const byInclusion = new Map<string, ProjectConfig>();

/**
 * The project of a source file: `configFile` when given, else the nearest tsconfig.json above the
 * file — and with it, the configs tspc may have been given instead, whose plugin entry would then
 * be the one that counts: the projects it references (a solution-style tsconfig.json, as vite's
 * template has, whose entry is in tsconfig.app.json) and the tsconfig.*.json beside it
 * (tsconfig.build.json). Where those carry a lockweave entry, they must agree: which one tspc is
 * run with cannot be known here, and two would lock different keys. Else it is an error that
 * names them, and the route's `tsconfig` option says which.
 */
export function projectConfigFor(fileName: string, configFile?: string, tsApi?: typeof ts): ProjectConfig {
  if (configFile) {
    const known = byConfigFile.get(path.resolve(configFile));
    if (known && !holds({ files: known.configFiles, absent: known.shadowedBy, present: [], beside: '' }, undefined))
      forgetProjectConfigs();
    const named = readCached(path.resolve(configFile), tsApi);
    return againstOwnProject(fileName, named, tsApi);
  }
  return underNearest(fileName, nearestTsconfigOf(fileName), tsApi, undefined);
}

/**
 * projectConfigFor (without a named config) for many files at once: tspc's check of a program's
 * tagged files (nearest-entry.ts). One call of projectConfigFor asks the disk whether its cached
 * answer still holds — the configs' text read again, the names beside them listed — since a
 * long-running process asks again after an edit; a batch asks once per nearest tsconfig, and looks
 * for each folder's nearest tsconfig once: 200 tagged files of one project read its config once, not
 * 200 times. An edit made while the batch runs is seen by the next batch (the next program's check),
 * as by tspc itself, which read its config before.
 */
export function projectConfigsOf(tsApi: typeof ts): (fileName: string) => ProjectConfig {
  const checked = new Set<string>();
  const nearestByFolder = new Map<string, string | undefined>();
  return (fileName) => {
    const folder = path.dirname(path.resolve(fileName));
    if (!nearestByFolder.has(folder)) nearestByFolder.set(folder, nearestTsconfigOf(fileName));
    return underNearest(fileName, nearestByFolder.get(folder), tsApi, checked);
  };
}

/** The project of `fileName`, whose nearest tsconfig is `nearest`; `checked`: the nearest ones whose answer was found to hold in this batch. */
function underNearest(
  fileName: string,
  nearest: string | undefined,
  tsApi: typeof ts | undefined,
  checked: Set<string> | undefined,
): ProjectConfig {
  if (!nearest) return NO_PROJECT;
  let known = byNearest.get(nearest);
  if (known && !checked?.has(nearest) && !holds(known.readFrom, nearest)) {
    forgetProjectConfigs();
    known = undefined;
  }
  if (!known) byNearest.set(nearest, (known = readNearest(nearest, tsApi)));
  checked?.add(nearest);
  const { project } = known;
  // The common case, an entry in the nearest project's configs: no project's files are listed.
  if (project.enclosing.length === 0) return project.config;
  const including = project.enclosing.filter((config) => includes(config.configFile!, fileName, tsApi));
  const key = [nearest, ...including.map((config) => config.configFile)].join('\n');
  let config = byInclusion.get(key);
  if (!config) byInclusion.set(key, (config = withEnclosingEntry(project.config, including, project.enclosing)));
  return config;
}

/**
 * A route told to read a config (a bundler's `tsconfig` option, `tsx --tsconfig`) weaves with its
 * lockweave entry, or with the defaults where it has none; when the file's own project has an entry,
 * tspc builds the file with that one (nearest-entry.ts refuses any other), and where the two differ
 * they would lock other keys: an error, naming both. Else the named config, depending on the files
 * of the own project too (an entry written there later weaves again).
 */
function againstOwnProject(fileName: string, named: ProjectConfig, tsApi: typeof ts | undefined): ProjectConfig {
  const reads = `lockweave: the route reads ${named.configFile} for ${fileName}`;
  const fix = named.hasEntry
    ? `Give both the same lockweave entry, or name the config of the file's own project.`
    : `Add the entry tspc builds with to ${named.configFile} ({ "transform": "lockweave/transformer", … }), or name a config that has it.`;
  let own: ProjectConfig;
  try {
    own = projectConfigFor(fileName, undefined, tsApi);
  } catch (error) {
    // Its configs disagree, and naming one with an entry is how the route is told which (the error says so).
    if (named.hasEntry) return named;
    throw new Error(
      `${reads}, which has no lockweave plugin entry, and the file's own project has entries (${(error as Error).message}) ${fix}`,
    );
  }
  if (!own.hasEntry || settingsText(own.plugin) === settingsText(named.plugin))
    return {
      ...named,
      configFiles: [...new Set([...named.configFiles, ...own.configFiles])],
      shadowedBy: [...new Set([...named.shadowedBy, ...own.shadowedBy])],
      present: own.present,
    };
  const says = named.hasEntry
    ? `whose lockweave plugin entry says ${settingsText(named.plugin)}`
    : 'which has no lockweave plugin entry';
  throw new Error(
    `${reads}, ${says}, but the file's own project (${own.configFile ?? 'its tsconfig files'}) says ${settingsText(own.plugin)}, which tspc builds it with: the route would lock other keys. ${fix}`,
  );
}

/**
 * The error for weaving `file`'s tagged methods (`locked`) in a project whose entry cannot be told
 * (ProjectConfig's undecided); undefined when there is an entry, or nothing to lock.
 */
export function undecidedError(file: string, project: ProjectConfig, locked: readonly string[]): Error | undefined {
  if (project.undecided === undefined || locked.length === 0) return undefined;
  return new Error(
    `lockweave: ${file} holds @redisLock tags, but which plugin entry locks them cannot be told: ${project.undecided}, ` +
      'so the routes would lock other keys than tspc. Give its tsconfig.json the same lockweave entry, or list its folder in the project above (include).',
  );
}

/** `tsApi`: the compiler to read with (tspc's own, in tspc); else lockweave's (typescript.ts). */
function readCached(configFile: string, tsApi?: typeof ts): ProjectConfig {
  let config = byConfigFile.get(configFile);
  if (!config) byConfigFile.set(configFile, (config = readProjectConfig(configFile, tsApi ?? ownTypeScript())));
  for (const file of config.configFiles) reading?.add(file);
  return config;
}

/** The nearest project's answer, and what it was read from. */
function readNearest(
  nearest: string,
  tsApi: typeof ts | undefined,
): { readonly project: NearestProject; readonly readFrom: ReadFrom } {
  const reads = new Set<string>();
  reading = reads;
  try {
    const project = agreedConfig(nearest, tsApi);
    const { shadowedBy, present = [] } = project.config;
    return {
      project,
      readFrom: { files: [...reads], absent: shadowedBy, present, beside: projectKey(nearest) },
    };
  } finally {
    reading = undefined;
  }
}

/** Whether the disk still says what an answer was read from. */
function holds(readFrom: ReadFrom, nearest: string | undefined): boolean {
  return (
    readFrom.files.every((file) => {
      const parsed = parsedTexts.get(path.resolve(file));
      return parsed !== undefined && parsed.readFile(file) === parsed.text;
    }) &&
    !readFrom.absent.some((file) => fs.existsSync(file)) &&
    readFrom.present.every((file) => fs.existsSync(file)) &&
    (nearest === undefined || projectKey(nearest) === readFrom.beside)
  );
}

/** Drops every answer: one config changed, and others may have been read with it. */
function forgetProjectConfigs(): void {
  byConfigFile.clear();
  byNearest.clear();
  byInclusion.clear();
  listingByConfigFile.clear();
  parsedTexts.clear();
}

/** TypeScript's reader of config files, noting each text it parses (holds compares them). */
function noting(tsApi: typeof ts): ReadFile {
  const readFile: ReadFile = (file) => tsApi.sys.readFile(file);
  return (file) => {
    const text = readFile(file);
    const key = path.resolve(file);
    parsedTexts.set(key, { text, readFile });
    reading?.add(key);
    return text;
  };
}

function agreedConfig(nearest: string, tsApi: typeof ts | undefined): NearestProject {
  const { read, configFiles, shadowedBy } = withAlternatives(nearest, tsApi);
  const own = read[0]!;
  const entries = read.filter((config) => config.hasEntry);
  assertAgreed(entries);
  if (entries.length === 0) return enclosingProjects(nearest, own, configFiles, shadowedBy, tsApi);
  // An entry only elsewhere (a solution-style tsconfig.json): that project's entry and compiler options.
  const base = own.hasEntry ? own : entries[0]!;
  return { config: { ...base, configFiles, shadowedBy }, enclosing: [] };
}

/**
 * A tsconfig and the configs tspc may be given in its place: the projects it references and the
 * tsconfig.*.json beside it. What they were read from is what an answer depends on — a change in
 * any weaves again — and so is one that cannot be read (tspc builds nothing with it, until it is
 * mended) or is not there (a reference to a config not yet written).
 */
function withAlternatives(
  tsconfig: string,
  tsApi: typeof ts | undefined,
): { read: ProjectConfig[]; configFiles: string[]; shadowedBy: string[] } {
  const read = [readCached(tsconfig, tsApi)];
  const unreadable: string[] = [];
  const missing: string[] = [];
  for (const file of new Set([...read[0]!.references, ...siblingConfigs(tsconfig)])) {
    if (file === tsconfig) continue;
    try {
      read.push(readCached(file, tsApi));
    } catch {
      (fs.existsSync(file) ? unreadable : missing).push(file);
    }
  }
  return {
    read,
    configFiles: [...new Set([...read.flatMap((config) => config.configFiles), ...unreadable])],
    shadowedBy: [...new Set([...read.flatMap((config) => config.shadowedBy), ...missing])],
  };
}

/**
 * The nearest project has no lockweave entry (an editor's tsconfig.json in a folder of a larger
 * project, `src/legacy/tsconfig.json`): the file may be built by a project further up, whose
 * tsconfig.json includes the folder — `tspc -p .` at the root weaves it with the root's entry. So
 * the tsconfig.json files above, up to the project's root (projectRoot), are read; those with an
 * entry give it to the files they include (withEnclosingEntry). The nearest project's compiler
 * options stay the file's. Every tsconfig.json read is what the answer depends on — with or
 * without an entry, including the file or not: an edit can change either — and so is the absence
 * of one in each folder up to the root, and of the markers that would move the root.
 */
function enclosingProjects(
  nearest: string,
  own: ProjectConfig,
  configFiles: string[],
  shadowedBy: string[],
  tsApi: typeof ts | undefined,
): NearestProject {
  const root = projectRoot(path.dirname(nearest));
  const enclosing: ProjectConfig[] = [];
  const absent: string[] = [...root.absent];
  const above = root.dir ? foldersUp(path.dirname(nearest), root.dir).slice(1) : [];
  for (const dir of above) {
    const candidate = path.join(dir, 'tsconfig.json');
    if (!fs.existsSync(candidate)) {
      absent.push(candidate);
      continue;
    }
    // Its references and the configs beside it too: `tspc -p tsconfig.build.json` there, or the
    // tsconfig.app.json a solution-style tsconfig.json names, builds the folder with its entry.
    try {
      const alternatives = withAlternatives(candidate, tsApi);
      enclosing.push(...alternatives.read);
      configFiles.push(...alternatives.configFiles);
      absent.push(...alternatives.shadowedBy);
    } catch {
      // One tspc cannot read either builds nothing: not the file's project, until it is mended.
      configFiles.push(candidate);
    }
  }
  const config = {
    ...own,
    configFiles: [...new Set(configFiles)],
    shadowedBy: [...new Set([...shadowedBy, ...absent])],
    present: root.present,
  };
  return { config, enclosing: enclosing.filter((read) => read.hasEntry) };
}

/**
 * The entry of the enclosing configs that include the file; where two differ, an error, as for the
 * configs beside the nearest one. None: the nearest project's answer, no entry — the routes weave
 * with the defaults, as in a project that has none, and tspc, building the file with an entry,
 * fails at it (nearest-entry.ts).
 */
function withEnclosingEntry(
  config: ProjectConfig,
  including: readonly ProjectConfig[],
  enclosing: readonly ProjectConfig[],
): ProjectConfig {
  if (including.length === 0)
    return {
      ...config,
      undecided:
        `its own project (${config.configFile}) has no lockweave plugin entry, and ${enclosing.map((read) => read.configFile).join(' and ')} above, which ` +
        `${enclosing.length > 1 ? 'have' : 'has'} one, ${enclosing.length > 1 ? 'do' : 'does'} not list it — yet tsc builds it with that entry when a file listed there imports it`,
    };
  assertAgreed(including);
  return { ...config, hasEntry: true, plugin: including[0]!.plugin };
}

/**
 * The folder the look for an enclosing tsconfig.json stops at, from `start` up: the nearest one
 * with a .git (a folder, or a worktree's file), else the highest with a package.json (a
 * monorepo's root above its workspaces'); undefined when neither is found — then none is looked
 * at. A tsconfig.json beyond it (a stray ~/tsconfig.json) is no part of the project, and must not
 * decide its keys. `absent`: the markers whose appearance would move it; `present`: the one whose
 * removal would (by its existence, not its text: a .git folder has none, and a package.json's
 * changes with every dependency — the woven files would be woven again for nothing).
 */
function projectRoot(start: string): {
  readonly dir: string | undefined;
  readonly absent: string[];
  readonly present: string[];
} {
  const folders = foldersUp(start, undefined);
  const marker = (name: string) => (dir: string) => path.join(dir, name);
  const gitAt = folders.findIndex((dir) => fs.existsSync(path.join(dir, '.git')));
  if (gitAt >= 0)
    return {
      dir: folders[gitAt],
      absent: folders.slice(0, gitAt).map(marker('.git')),
      present: [path.join(folders[gitAt], '.git')],
    };
  const packageRoot = folders.filter((dir) => fs.existsSync(path.join(dir, 'package.json'))).at(-1);
  const abovePackage = folders.slice(packageRoot ? folders.indexOf(packageRoot) + 1 : 0);
  return {
    dir: packageRoot,
    absent: [...folders.map(marker('.git')), ...abovePackage.map(marker('package.json'))],
    present: packageRoot ? [path.join(packageRoot, 'package.json')] : [],
  };
}

/** `from` and the folders above it, up to `to` (included), else to the file system's root. */
function foldersUp(from: string, to: string | undefined): string[] {
  const folders: string[] = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    folders.push(dir);
    if (dir === to || path.dirname(dir) === dir) return folders;
  }
}

/** The files a config's project is built from, as tsc lists them; files known not to be among them. */
interface Listing {
  files: Set<string>;
  readonly notIncluded: Set<string>;
}

/** By config file and the extension of a name tsc does not list ('' for its own). */
const listingByConfigFile = new Map<string, Listing>();

/**
 * Whether `configFile`'s project includes the file (`files`, `include`, `exclude`): only then would
 * tspc build it with that config's entry. Its files are listed once; a file not among them is looked
 * for in a new listing, once — one written since (a module a dev server sees created) would
 * otherwise lose the entry, and its woven text, cached on disk, would lock another key. Whether a
 * file that exists is included depends only on the configs' text, which the answer depends on.
 *
 * tsc lists only the names it compiles; a route also weaves others (`.vue`, a `.svc` given to
 * esbuild's ts loader, `.js` without allowJs). Those are listed as tsc would if the name were one of
 * its own — a listing per config and extension — so a `.vue` file beside a `.ts` one in a folder
 * the config includes gets the same entry, and the same keys.
 */
function includes(configFile: string, fileName: string, tsApi: typeof ts | undefined): boolean {
  const api = tsApi ?? ownTypeScript();
  const file = fileKey(api, fileName);
  const extension = TYPESCRIPT_NAME.test(fileName) ? '' : path.extname(fileName);
  const listingKey = `${configFile}\0${extension}`;
  let listing = listingByConfigFile.get(listingKey);
  if (!listing)
    listingByConfigFile.set(
      listingKey,
      (listing = { files: filesOf(configFile, extension, api), notIncluded: new Set() }),
    );
  if (listing.files.has(file)) return true;
  if (listing.notIncluded.has(file)) return false;
  listing.files = filesOf(configFile, extension, api);
  if (listing.files.has(file)) return true;
  listing.notIncluded.add(file);
  return false;
}

/** The names tsc lists by its own rules; any other extension is listed as an extra one. */
const TYPESCRIPT_NAME = /\.(?:[cm]?ts|tsx)$/;

/**
 * The files of a config's project, read from the disk as tsc reads them. With `extension` (`.vue`),
 * the files of that name too, each listed when the config would list it under its own name (an
 * `include` of `src`, or of the `.vue` files under it) or when it would list a TypeScript file in its
 * place (an `include` of the `.ts` files under `src`): the key a folder's TypeScript gets is the key
 * its other names get.
 */
function filesOf(configFile: string, extension: string, tsApi: typeof ts): Set<string> {
  const json = tsApi.readJsonConfigFile(configFile, tsApi.sys.readFile);
  const list = (host: ts.ParseConfigHost, extra: readonly ts.FileExtensionInfo[]) =>
    tsApi.parseJsonSourceFileConfigFileContent(
      json,
      host,
      path.dirname(configFile),
      undefined,
      configFile,
      undefined,
      extra,
    ).fileNames;
  if (!extension) return new Set(list(tsApi.sys, []).map((file) => fileKey(tsApi, file)));
  const byOwnName = list(tsApi.sys, [{ extension, isMixedContent: true, scriptKind: tsApi.ScriptKind.Deferred }]);
  const asTypeScript = typeScriptNamesHost(tsApi, extension);
  const inPlace = asTypeScript ? list(asTypeScript, []).map((file) => file.replace(AS_TYPESCRIPT, '')) : [];
  return new Set([...byOwnName, ...inPlace].map((file) => fileKey(tsApi, file)));
}

/** The suffix typeScriptNamesHost gives a file of another name: `Pay.vue` is listed as `Pay.vue.ts`. */
const AS_TYPESCRIPT_SUFFIX = '.ts';
const AS_TYPESCRIPT = /\.ts$/;

/**
 * A host that shows each file named `*<extension>` under a TypeScript name, for tsc's own matching
 * of `include` and `exclude` (ts.matchFiles, which tsc's readDirectory calls). undefined when the
 * compiler does not have it; the listing by the file's own name is then the only one.
 */
function typeScriptNamesHost(tsApi: typeof ts, extension: string): ts.ParseConfigHost | undefined {
  const matchFiles = (tsApi as unknown as { matchFiles?: MatchFiles }).matchFiles;
  if (typeof matchFiles !== 'function') return undefined;
  const entries = (dir: string) => {
    const files: string[] = [];
    const directories: string[] = [];
    let found: fs.Dirent[] = [];
    try {
      found = fs.readdirSync(dir || '.', { withFileTypes: true });
    } catch {
      // unreadable: nothing listed in it, as tsc's own listing does
    }
    for (const entry of found) {
      const stat = entry.isSymbolicLink() ? fs.statSync(path.join(dir, entry.name), { throwIfNoEntry: false }) : entry;
      if (stat?.isFile())
        files.push(entry.name.endsWith(extension) ? `${entry.name}${AS_TYPESCRIPT_SUFFIX}` : entry.name);
      else if (stat?.isDirectory()) directories.push(entry.name);
    }
    return { files: files.sort(), directories: directories.sort() };
  };
  const useCaseSensitiveFileNames = tsApi.sys.useCaseSensitiveFileNames;
  return {
    useCaseSensitiveFileNames,
    fileExists: tsApi.sys.fileExists,
    readFile: tsApi.sys.readFile,
    readDirectory: (root, extensions, excludes, includes, depth) =>
      matchFiles(
        root,
        extensions,
        excludes,
        includes,
        useCaseSensitiveFileNames,
        process.cwd(),
        depth,
        entries,
        (file) => (tsApi.sys.realpath ? tsApi.sys.realpath(file) : file),
      ),
  };
}

type MatchFiles = (
  root: string,
  extensions: readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  includes: readonly string[] | undefined,
  useCaseSensitiveFileNames: boolean,
  currentDirectory: string,
  depth: number | undefined,
  entries: (dir: string) => { files: readonly string[]; directories: readonly string[] },
  realpath: (file: string) => string,
) => string[];

/** A file's path as the listings hold it: absolute, in the platform's separators, in one case where the file system has one. */
function fileKey(tsApi: typeof ts, fileName: string): string {
  const resolved = path.resolve(fileName);
  return tsApi.sys.useCaseSensitiveFileNames ? resolved : resolved.toLowerCase();
}

/** Throws unless the lockweave entries of the configs tspc may build a file with say the same prefix and defaults. */
function assertAgreed(entries: readonly ProjectConfig[]): void {
  // The same settings in other spellings or key orders are the same keys: compared as settingsText, as tspc's check does.
  const settings = (config: ProjectConfig) => settingsText(config.plugin);
  const differing = entries.filter((config) => settings(config) !== settings(entries[0]!));
  if (differing.length > 0)
    throw new Error(
      `lockweave: the lockweave plugin entries of ${entries.map((config) => `${config.configFile} (${settings(config)})`).join(' and ')}${settingsNote(entries.map((config) => config.plugin))} differ, ` +
        "and which one tspc builds with cannot be told from here: the methods would lock other keys than tspc's. " +
        "Give them the same prefix and defaults, or name the tsconfig in the route's options ({ tsconfig: 'tsconfig.app.json' }).",
    );
}

function readProjectConfig(configFile: string, tsApi: typeof ts): ProjectConfig {
  // Every file TypeScript reads for the chain of `extends` — the configs, and the package.json files
  // whose `exports` say which config a package specifier names — and every path it asked about and
  // found missing (`./base` before `./base.json`, a nearer node_modules): the settings depend on all
  // of them, and an answer (a cached weave) holds only while each is as it was.
  const read = new Set<string>();
  const missing = new Set<string>();
  const noted = noting(tsApi);
  const readFile: ReadFile = (file) => {
    const text = noted(file);
    if (text !== undefined) read.add(path.resolve(file));
    return text;
  };
  const fileExists = (file: string) => {
    const exists = tsApi.sys.fileExists(file);
    if (!exists) missing.add(path.resolve(file));
    return exists;
  };
  const json = tsApi.readJsonConfigFile(configFile, readFile);
  const syntax = (json as { parseDiagnostics?: ts.Diagnostic[] }).parseDiagnostics?.[0];
  if (syntax) throw new Error(`lockweave: cannot read ${configFile}: ${flatten(tsApi, syntax)}`);
  // A host that lists no files: the options and `extends` are all we need, and enumerating a
  // large project's sources would cost more than the weaving itself.
  const host: ts.ParseConfigHost = {
    useCaseSensitiveFileNames: tsApi.sys.useCaseSensitiveFileNames,
    readDirectory: () => [],
    fileExists,
    readFile,
  };
  const parsed = tsApi.parseJsonSourceFileConfigFileContent(
    json,
    host,
    path.dirname(configFile),
    undefined,
    configFile,
  );
  // Errors about options (deprecations, "no inputs") do not change what is woven; an unreadable
  // base config does (its plugin entry would be lost).
  const broken = parsed.errors.find((error) => error.code === 5083 || error.code === 6053 || error.code === 1005);
  if (broken) throw new Error(`lockweave: cannot read ${configFile}: ${flatten(tsApi, broken)}`);
  const configFiles = [...new Set([configFile, ...(json.extendedSourceFiles ?? []), ...read])];
  const entry = optionsEntry(parsed.options.plugins);
  return {
    configFile,
    hasEntry: entry !== undefined,
    references: (parsed.projectReferences ?? []).map(({ path: reference }) =>
      reference.endsWith('.json') ? reference : path.join(reference, 'tsconfig.json'),
    ),
    configFiles,
    shadowedBy: [...new Set([...shadowingPackages(tsApi, configFiles), ...missing])],
    plugin: entry ? { prefix: entry.prefix, defaults: entry.defaults } : {},
    compilerOptions: parsed.options,
  };
}

/**
 * For each config of the chain that extends a package (`"extends": "@org/tsconfig/base.json"`):
 * the node_modules/<package> directories between the config and the node_modules it was found in,
 * none of which exists now — one installed there later would be the base TypeScript reads.
 */
function shadowingPackages(tsApi: typeof ts, chain: readonly string[]): string[] {
  const shadows: string[] = [];
  for (const config of chain) {
    const extended: unknown = tsApi.readConfigFile(config, tsApi.sys.readFile).config?.extends;
    const specifiers = (Array.isArray(extended) ? extended : [extended]).filter(
      (specifier): specifier is string =>
        typeof specifier === 'string' && !specifier.startsWith('.') && !path.isAbsolute(specifier),
    );
    for (const specifier of specifiers) {
      const parts = specifier.split('/');
      const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
      const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
      const found = chain.find((file) => file.includes(marker));
      const foundIn = found?.slice(0, found.lastIndexOf(marker));
      for (let dir = path.dirname(config); dir !== foundIn; dir = path.dirname(dir)) {
        shadows.push(path.join(dir, 'node_modules', name));
        if (path.dirname(dir) === dir) break;
      }
    }
  }
  return shadows;
}

function flatten(tsApi: typeof ts, diagnostic: ts.Diagnostic): string {
  return tsApi.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
}
