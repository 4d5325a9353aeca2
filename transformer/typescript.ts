// The TypeScript that lockweave parses, checks and (in `lockweave build`) emits with, outside the
// user's tspc: the bundler plugins, the Node loader, jest and the command line.
//
// It is the project's own `typescript` when that is 5.x or 6.x, the compilers written in
// JavaScript. TypeScript 7 is native code whose package exports no compiler API (only its
// version), so a project on 7 installs TypeScript 6 beside it under the name `typescript6`.
// Nothing else is taken: no compiler found is BuildDependencyError with the line that installs
// one, never a file left unwoven. It is a peer, not a dependency: a service's production install
// carries no compiler.
import type * as ts from 'typescript';
import { BuildDependencyError, findPackage, LOCKWEAVE_DIR, type FoundPackage } from './build-dependency';

/** The versions whose package is the JavaScript compiler with its API. */
const hasCompilerApi = (found: FoundPackage) => found.major === 5 || found.major === 6;

const chosen = new Map<string, FoundPackage>();
const apis = new Map<string, typeof ts>();

/**
 * Which TypeScript the weave runs on, read without loading it. `projectDir` (the command line
 * passes the tsconfig's folder) is looked in before lockweave's own place.
 */
export function ownTypeScriptPackage(projectDir?: string): FoundPackage {
  const from = projectDir ? [projectDir, LOCKWEAVE_DIR] : [LOCKWEAVE_DIR];
  const key = from.join('\0');
  let found = chosen.get(key);
  if (!found) {
    found = choose(from);
    chosen.set(key, found);
  }
  return found;
}

/** The compiler API of ownTypeScriptPackage(), loaded on first use: a process with no tag to weave never pays for it. */
export function ownTypeScript(projectDir?: string): typeof ts {
  const found = ownTypeScriptPackage(projectDir);
  let api = apis.get(found.dir);
  if (!api) {
    api = require(found.dir) as typeof ts;
    // A package that says 5.x or 6.x but is not the compiler (a stub, a broken install).
    if (
      typeof api.createSourceFile !== 'function' ||
      typeof api.createPrinter !== 'function' ||
      typeof api.transpileModule !== 'function'
    ) {
      throw new BuildDependencyError(
        found.name === 'typescript' ? 'typescript' : 'typescript6',
        `${found.name} ${found.version} at ${found.dir} has no compiler API`,
      );
    }
    apis.set(found.dir, api);
  }
  return api;
}

function choose(from: readonly string[]): FoundPackage {
  const project = findPackage('typescript', from);
  if (project && hasCompilerApi(project)) return project;
  const beside = findPackage('typescript6', from);
  if (beside && hasCompilerApi(beside)) return beside;
  const besideText = beside ? `; typescript6 is ${beside.version}, not 6.x` : '';
  if (!project)
    throw new BuildDependencyError(
      beside ? 'typescript6' : 'typescript',
      `no TypeScript compiler is installed (5.x or 6.x)${besideText}`,
    );
  const why =
    project.major >= 7
      ? `the project's typescript is ${project.version}, the native compiler, which has no JavaScript API`
      : `the project's typescript is ${project.version}; lockweave needs 5.x or 6.x`;
  throw new BuildDependencyError('typescript6', `${why}${besideText}`);
}
