// What `nest build` and `nest start` build each project with, read from the Nest CLI's config the way
// @nestjs/cli reads it (lib/compiler/helpers/get-value-or-default.js): the command's flag, else the
// project's own value (`projects.<name>.compilerOptions.<key>`), else the root's, else Nest's default.
// A project's value replaces the root's whole, so a project's `"plugins": ["@nestjs/swagger"]` drops
// the root's "lockweave/nest" for that project — reading the file for the string alone cannot see it.
import { shellTokens, unquote } from './shell-words';

/**
 * The files the Nest CLI reads its config from when no `-c` names one. Nest 10 and later read the
 * first two, in this order; earlier versions `.nestcli.json`, `.nest-cli.json`, `nest-cli.json`,
 * `nest.json`. The audit reads each that exists: whichever the installed CLI takes is among them.
 */
export const NEST_CONFIG_FILES = ['nest-cli.json', '.nest-cli.json', '.nestcli.json', 'nest.json'];

/** Where a setting came from: the command's flag, the project's own entry, or the root (its file or Nest's default). */
export type Origin = 'command' | 'project' | 'root';

export interface NestBuild {
  /** A name of `projects`, or undefined for the root (`nest build` naming no project). */
  readonly project: string | undefined;
  /** tsc, swc, webpack or rspack (or whatever else the config says). */
  readonly builder: string;
  readonly builderFrom: Origin;
  /** The plugins its tsc builder runs, by name. */
  readonly plugins: readonly string[];
  readonly pluginsFrom: Origin;
  /** The tsconfig its tsc builder compiles, when one is named (else Nest's default: tsconfig.build.json when there is one). */
  readonly tsconfig: string | undefined;
  /** The rspack builder's config, when one is named (else rspack.config.js). */
  readonly rspackConfig: string | undefined;
}

type Json = Record<string, unknown>;

/** Nest's defaults for compilerOptions (lib/configuration/defaults.js), as far as the audit reads them. */
const DEFAULT_COMPILER_OPTIONS: Json = { builder: { type: 'tsc' }, webpack: false, plugins: [] };

/**
 * Each build a config (its text; '' for none) gives: with a command, the projects it names (`--all`:
 * every one), else the root; without one (the config file audited by itself), the root and every
 * project, since a script or a person may build any of them. Undefined when the text is not JSON:
 * the Nest CLI refuses such a config and builds nothing.
 */
export function nestBuilds(configText: string, command?: string): NestBuild[] | undefined {
  const config = loadedConfig(configText);
  if (!config) return undefined;
  const projects = isObject(config.projects) ? Object.keys(config.projects) : [];
  const flags = command === undefined ? undefined : commandFlags(command);
  const names: (string | undefined)[] = flags ? (flags.all ? projects : flags.apps) : [undefined, ...projects];
  if (names.length === 0) names.push(undefined);
  return names.map((name) => resolveBuild(config, name, flags?.values ?? new Map()));
}

/** The config as Nest's loader leaves it: the file's keys over the defaults, its compilerOptions over theirs. */
function loadedConfig(text: string): Json | undefined {
  let file: unknown = {};
  if (text.trim() !== '') {
    try {
      file = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (!isObject(file)) return undefined;
  const own = file.compilerOptions;
  const compilerOptions = isObject(own)
    ? { ...DEFAULT_COMPILER_OPTIONS, ...own }
    : 'compilerOptions' in file
      ? own
      : DEFAULT_COMPILER_OPTIONS;
  return { projects: {}, ...file, compilerOptions };
}

function resolveBuild(config: Json, project: string | undefined, flags: ReadonlyMap<string, string | true>): NestBuild {
  const setting = (key: string, flag?: unknown) => valueOrDefault(config, project, key, flag);
  const flagged = (...names: string[]) => names.map((name) => flags.get(name)).find((value) => value !== undefined);
  // `--tsc` sets webpack false, which wins over the config's `"webpack": true` as any flag does.
  const webpack = setting('webpack', flags.has('--tsc') ? false : flags.has('--webpack') ? true : undefined);
  const builder = webpack.value
    ? { value: { type: 'webpack' }, from: webpack.from }
    : setting('builder', flagged('-b', '--builder'));
  const builderType = typeof builder.value === 'string' ? builder.value : typeOf(builder.value);
  // Nest reads the builder's own configPath without the command's flags.
  const configured = valueOrDefault(config, project, 'builder').value;
  const configPath = (type: string) =>
    isObject(configured) &&
    configured.type === type &&
    isObject(configured.options) &&
    typeof configured.options.configPath === 'string'
      ? configured.options.configPath
      : undefined;
  const tsconfig = setting('tsConfigPath', flagged('-p', '--path')).value;
  const rspackPath = flagged('--rspackPath');
  const plugins = setting('plugins');
  return {
    project,
    builder: builderType,
    builderFrom: builder.from,
    plugins: Array.isArray(plugins.value) ? plugins.value.map(pluginName).filter((name) => name !== undefined) : [],
    pluginsFrom: plugins.from,
    tsconfig: typeof tsconfig === 'string' ? tsconfig : configPath('tsc'),
    rspackConfig: typeof rspackPath === 'string' ? rspackPath : configPath('rspack'),
  };
}

/** getValueOrDefault for `compilerOptions.<key>`: a flag that is set, else the project's value, else the root's. */
function valueOrDefault(
  config: Json,
  project: string | undefined,
  key: string,
  flag?: unknown,
): { value: unknown; from: Origin } {
  if (flag !== undefined && flag !== null) return { value: flag, from: 'command' };
  const projects = config.projects;
  if (project !== undefined && isObject(projects) && projects[project]) {
    const own = valueOfPath(projects[project], ['compilerOptions', key]);
    if (own !== undefined) return { value: own, from: 'project' };
  }
  return { value: valueOfPath(config, ['compilerOptions', key]), from: 'root' };
}

/** Nest's getValueOfPath: stops at the first missing step and gives what it stopped at (a null stays null). */
function valueOfPath(object: unknown, keys: readonly string[]): unknown {
  let value = object;
  for (const key of keys) {
    if (!value) break;
    value = (value as Json)[key];
  }
  return value;
}

function typeOf(builder: unknown): string {
  return isObject(builder) && typeof builder.type === 'string' ? builder.type : String(builder);
}

/** A plugin as nest-cli.json names one: "name" or { "name": …, "options": … }. */
function pluginName(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  return isObject(entry) && typeof entry.name === 'string' ? entry.name : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Options of `nest build` / `nest start` that take a value (commander gives them the next word unless it is an option). */
const VALUE_OPTIONS = new Set([
  '-c',
  '--config',
  '-p',
  '--path',
  '-b',
  '--builder',
  '--webpackPath',
  '--rspackPath',
  '--parallel',
  '-d',
  '--debug',
  '--sourceRoot',
  '--entryFile',
  '-e',
  '--exec',
  '--env-file',
]);

/** The projects a `nest build|start` command names, `--all`, and its options' values (`true` for a switch). */
function commandFlags(command: string): { apps: string[]; all: boolean; values: Map<string, string | true> } {
  const words = shellTokens(command).flatMap((token) => (token.kind === 'word' ? [unquote(token.text)] : []));
  const at = words.findIndex((word, i) => /(?:^|\/)nest$/.test(word) && /^(?:build|start)$/.test(words[i + 1] ?? ''));
  const apps: string[] = [];
  const values = new Map<string, string | true>();
  for (let i = at < 0 ? words.length : at + 2; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith('-')) {
      apps.push(word);
      continue;
    }
    const joined = /^(--[^=]+)=(.*)$/.exec(word) ?? /^(-[a-z])(.+)$/i.exec(word);
    if (joined && VALUE_OPTIONS.has(joined[1])) values.set(joined[1], joined[2]);
    else if (VALUE_OPTIONS.has(word) && words[i + 1] !== undefined && !words[i + 1].startsWith('-'))
      values.set(word, words[++i]);
    else values.set(word, true);
  }
  return { apps, all: values.has('--all'), values };
}
