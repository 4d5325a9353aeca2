// The packages lockweave needs only where it weaves, never where a woven service runs.
//
// A production install (`npm install lockweave` in a service) holds the runtime and its Redis
// client. The compiler and the glue of the build-time parts — the bundler plugins, Node's loader,
// the jest transform, `lockweave build` — are the project's own: optional peer dependencies,
// loaded here on first use and resolved as lockweave's own imports are (from where lockweave is
// installed, never from the working directory, which anyone may have written to).
//
// Fail closed: a route whose package is missing throws BuildDependencyError, naming the route and
// the command that installs it. It never hands on a file unwoven — a missing weaver must never
// mean a method that runs without its lock.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** lockweave's routes that weave TypeScript source outside tspc. */
const SOURCE_ROUTES =
  'lockweave/register, lockweave/jest and the bundler plugins (lockweave/vite, /rollup, /rolldown, /esbuild, /webpack, /rspack)';
const COMMAND_LINE = "lockweave's command line (build, verify, check, show)";

/** Each build-time package: what needs it, and the command that installs it. */
export const BUILD_DEPENDENCIES = {
  'magic-string': { neededBy: SOURCE_ROUTES, install: 'npm install -D magic-string' },
  typescript: { neededBy: `${SOURCE_ROUTES} and ${COMMAND_LINE}`, install: 'npm install -D typescript@6' },
  // TypeScript 7 is native code with no JavaScript API: a project on 7 keeps TypeScript 6 beside it.
  typescript6: {
    neededBy: `${SOURCE_ROUTES} and ${COMMAND_LINE}`,
    install: 'npm install -D typescript6@npm:typescript@^6',
  },
} as const;

export type BuildDependency = keyof typeof BUILD_DEPENDENCIES;

export class BuildDependencyError extends Error {
  constructor(
    readonly dependency: BuildDependency,
    detail: string,
  ) {
    const { neededBy, install } = BUILD_DEPENDENCIES[dependency];
    super(
      `lockweave: ${detail}. ${neededBy} need it; nothing was woven, and no tagged method was run or emitted without its lock. ` +
        `Install it where the weave runs: ${install}`,
    );
    this.name = 'BuildDependencyError';
  }
}

/** Where lockweave itself resolves its imports from (its real path: a pnpm store, a link). */
export const LOCKWEAVE_DIR = __dirname;

const loaded = new Map<BuildDependency, unknown>();

/** A build-time package, loaded on first use; BuildDependencyError when it is not installed. */
export function loadBuildDependency<T>(name: Exclude<BuildDependency, 'typescript' | 'typescript6'>): T {
  if (!loaded.has(name)) {
    let file: string;
    try {
      file = require.resolve(name, { paths: [LOCKWEAVE_DIR] });
    } catch {
      throw new BuildDependencyError(name, `${name} is not installed`);
    }
    loaded.set(name, require(file));
  }
  return loaded.get(name) as T;
}

export interface FoundPackage {
  readonly name: string;
  /** The package directory. */
  readonly dir: string;
  readonly version: string;
  readonly major: number;
}

/** The package `name` as seen from the first of `from` that has it, read without loading it; undefined when none has. */
export function findPackage(name: string, from: readonly string[]): FoundPackage | undefined {
  let manifest: string;
  try {
    manifest = require.resolve(`${name}/package.json`, { paths: [...from] });
  } catch {
    return undefined;
  }
  const version: unknown = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version?: unknown }).version;
  if (typeof version !== 'string') return undefined;
  return { name, dir: path.dirname(manifest), version, major: Number.parseInt(version, 10) };
}
