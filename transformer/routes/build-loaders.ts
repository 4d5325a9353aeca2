// What esbuild and Bun compile each file as. Both pick a file's loader by its extension, from their
// defaults and the build's `loader` option (Bun's runtime: bunfig.toml's [loader], `bun -l`), so a build with
// `loader: { '.svc': 'ts' }` compiles pay.svc as TypeScript — and drops the comments that hold its
// tags. lockweave asks the same table: its onLoad takes every file the tool compiles as TypeScript,
// whatever the name, and the build's end judges each input by the loader the tool used for it, not
// by lockweave's own list of extensions (load-step.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DECLARATION_FILE,
  isProjectFile,
  JAVASCRIPT_NAME,
  TYPESCRIPT_FILE,
} from '../../runtime/base/loaded-typescript';

/** A build's `loader` option: extension (with its dot) → loader name. */
export type LoaderMap = Readonly<Record<string, string>>;

/** What lockweave makes of a file: TypeScript it weaves, the project's JavaScript it refuses when tagged, or neither (data, a package's JavaScript). */
export type SourceKind = 'typescript' | 'javascript' | undefined;

/** What a tool compiles its files as, and the onLoad filter that takes those it compiles as TypeScript. */
export interface BuildLoaders {
  /** The loader the tool uses for `file` (`ts`, `tsx`, `js`, `json`, …), undefined when it has none. */
  loaderOf(file: string): string | undefined;
  /** Every file the tool compiles as TypeScript, by name (a Go regular expression under esbuild: no lookahead). */
  readonly filter: RegExp;
}

/** esbuild's own table (`loader` entries are added to it, "default" restoring these). */
const ESBUILD_DEFAULTS: LoaderMap = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.json': 'json',
  '.css': 'css',
  '.module.css': 'local-css',
  '.txt': 'text',
};

const TYPESCRIPT_LOADER = /^tsx?$/;
const JAVASCRIPT_LOADER = /^jsx?$/;

/**
 * esbuild's loaders: the longest extension of the file's name found in the table wins
 * (`.module.css` before `.css`), matched as written — `pay.TS` has no loader unless the build
 * names `.TS`.
 */
export function esbuildLoaders(loader: LoaderMap | undefined): BuildLoaders {
  const table: Record<string, string> = { ...ESBUILD_DEFAULTS };
  for (const [extension, name] of Object.entries(loader ?? {}))
    if (name === 'default') {
      if (ESBUILD_DEFAULTS[extension] === undefined) delete table[extension];
      else table[extension] = ESBUILD_DEFAULTS[extension];
    } else table[extension] = name;
  return {
    loaderOf(file) {
      const base = path.basename(file);
      for (let dot = base.indexOf('.'); dot !== -1; dot = base.indexOf('.', dot + 1)) {
        const name = table[base.slice(dot)];
        if (name !== undefined) return name;
      }
      return undefined;
    },
    filter: endingIn(Object.keys(table).filter((extension) => TYPESCRIPT_LOADER.test(table[extension]))),
  };
}

/**
 * Bun's loaders: the build's (or bunfig's) table by the last extension, then Bun's own, which
 * compiles TypeScript and JavaScript names in any case (`pay.TS` is TypeScript to Bun).
 */
export function bunLoaders(loader: LoaderMap | undefined): BuildLoaders {
  const table = loader ?? {};
  const typeScript = Object.keys(table).filter((extension) => TYPESCRIPT_LOADER.test(table[extension]));
  return {
    loaderOf(file) {
      const extension = path.extname(file);
      const named = table[extension] ?? table[extension.toLowerCase()];
      if (named !== undefined) return named;
      if (TYPESCRIPT_FILE.test(file)) return /x$/i.test(file) ? 'tsx' : 'ts';
      return JAVASCRIPT_NAME.test(file) ? (/x$/i.test(file) ? 'jsx' : 'js') : undefined;
    },
    filter:
      typeScript.length === 0
        ? TYPESCRIPT_FILE
        : new RegExp(`${TYPESCRIPT_FILE.source}|${endingIn(typeScript).source}`, 'i'),
  };
}

/**
 * The loaders Bun's runtime compiles with besides its own: the [loader] table of the bunfig.toml
 * files it reads — the global one ($XDG_CONFIG_HOME or the home directory, `.bunfig.toml`), then the
 * one `bun --config` names or else the working directory's — and last, winning over both, the
 * command line's `-l`/`--loader .svc:ts` (loaderFlags). A table this misses (a Bun that reads
 * another file) is the runtime's check of what ran to find: it refuses a tagged file compiled under
 * a name no route wove (runtime/base/weave-mark.ts).
 */
export function bunRuntimeLoaders(): LoaderMap {
  const parse = (globalThis as { Bun?: { TOML?: { parse(text: string): unknown } } }).Bun?.TOML?.parse;
  const home = process.env.XDG_CONFIG_HOME ?? os.homedir();
  const table: Record<string, string> = {};
  for (const file of [path.join(home, '.bunfig.toml'), path.resolve(configFlag() ?? 'bunfig.toml')]) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (!parse) continue;
    const loader = (parse(text) as { loader?: unknown } | undefined)?.loader;
    if (typeof loader !== 'object' || loader === null) continue;
    for (const [extension, name] of Object.entries(loader)) if (typeof name === 'string') table[extension] = name;
  }
  return { ...table, ...loaderFlags() };
}

/** The file `bun --config=<file>` (or `-c <file>`) names: Bun keeps its own flags in execArgv. */
function configFlag(): string | undefined {
  const argv = process.execArgv;
  for (let index = 0; index < argv.length; index++) {
    const flag = /^(?:--config|-c)(?:=(.*))?$/.exec(argv[index]);
    if (flag) return flag[1] ?? argv[index + 1];
  }
  return undefined;
}

/**
 * The mappings of Bun's `-l`/`--loader` flags, each `.ext:loader` (`-l .svc:ts`, `-l=.svc:ts`,
 * `-l.svc:ts`, `--loader .svc:ts`, `--loader=.svc:ts`, repeated): Bun 1.4 keeps its own flags, those
 * of BUN_OPTIONS among them, in execArgv (the script's own arguments are in argv). One this cannot
 * read would leave a file Bun compiles as TypeScript unwoven, and its tagged methods unlocked, so
 * it throws: the preload refuses the process rather than guess.
 */
function loaderFlags(): LoaderMap {
  const argv = process.execArgv;
  const table: Record<string, string> = {};
  for (let index = 0; index < argv.length; index++) {
    const flag = /^(?:--loader(?:=(.*))?|-l(?:=?(.+))?)$/s.exec(argv[index]);
    if (!flag) continue;
    const written = argv[index];
    const inline = flag[1] ?? flag[2];
    const value = inline ?? argv[++index];
    const mapping = value === undefined ? null : /^(\.[^:]+):([\w-]+)$/.exec(value);
    if (!mapping) {
      throw new Error(
        `lockweave: Bun was started with the loader flag ${JSON.stringify(inline === undefined ? `${written} ${value ?? ''}`.trim() : written)}, ` +
          'which lockweave cannot read (it reads `-l .ext:loader` and `--loader=.ext:loader`), so it cannot tell which files Bun ' +
          `compiles as TypeScript, and their @${'redisLock'} methods could run unlocked. Write it as \`--loader=.ext:loader\`, or map the ` +
          "extension in bunfig.toml's [loader] table.",
      );
    }
    table[mapping[1]] = mapping[2];
  }
  return table;
}

/**
 * What lockweave makes of `file` compiled with `loader`: TypeScript (declaration files aside, no
 * bodies) wherever it lives; JavaScript only as the project's own (packages ship it built).
 */
export function sourceKindOf(file: string, loader: string | undefined): SourceKind {
  if (loader === undefined) return undefined;
  if (TYPESCRIPT_LOADER.test(loader)) return DECLARATION_FILE.test(file) ? undefined : 'typescript';
  return JAVASCRIPT_LOADER.test(loader) && isProjectFile(file) ? 'javascript' : undefined;
}

/**
 * How weaveSource parses a file, by its name alone (transformer/weave-source.ts): JSX only in
 * `.tsx`, JavaScript in `.js` and the like, TypeScript in any other. A file the tool compiles with
 * another loader cannot be woven as it is compiled.
 */
export function parsedLoaderOf(file: string): 'ts' | 'tsx' | 'js' {
  if (/\.[cm]?tsx$/.test(file)) return 'tsx';
  if (/\.[cm]?jsx?$/.test(file)) return 'js';
  return 'ts';
}

/** A regular expression matching names that end in one of `extensions`, as written. */
function endingIn(extensions: readonly string[]): RegExp {
  if (extensions.length === 0) return /$^/;
  return new RegExp(
    `(?:${extensions.map((extension) => extension.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
  );
}
