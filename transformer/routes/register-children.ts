// Threads and processes this one starts: a worker thread (worker_threads.Worker) has a loader of
// its own — module.registerHooks hooks are the thread's — and a forked process its own preloads.
// Both take this process's command-line options and environment unless told otherwise,
// lockweave/register among them. One started with an `execArgv` or an `env` of its own that leaves
// lockweave/register out (NODE_OPTIONS is where a child reads preloads from its environment) runs its
// TypeScript stripped by Node, tags and all, and an unwoven tagged method there never loads the
// runtime that would refuse it. So lockweave/register goes first into such an `execArgv`: the child's
// TypeScript is woven as this process's is, and checked by the same rules.
import childProcess = require('node:child_process');
import nodeModule = require('node:module');
import workerThreads = require('node:worker_threads');
import { preloadsOf, resolvesTo } from './later-hooks';

/** Called by lockweave/register as it loads, with its own file. */
export function weaveChildren(ownFile: string): void {
  const names = (words: readonly unknown[]) =>
    preloadsOf(words.map(String)).some(({ specifier }) => resolvesTo(specifier, ownFile));
  // A child reads its preloads from its execArgv (this process's unless given) and from the
  // NODE_OPTIONS of its environment (this process's unless an `env` is given): lockweave/register
  // goes first into its execArgv unless one of them names it.
  const withRegister = <O>(options: O): O => {
    const given = options as { execArgv?: unknown; env?: unknown } | undefined;
    const execArgv = Array.isArray(given?.execArgv) ? (given.execArgv as unknown[]) : process.execArgv;
    const env = given?.env !== null && typeof given?.env === 'object' ? (given.env as NodeJS.ProcessEnv) : process.env;
    const nodeOptions = typeof env.NODE_OPTIONS === 'string' ? env.NODE_OPTIONS.split(/\s+/).filter(Boolean) : [];
    if (names(execArgv) || names(nodeOptions)) return options;
    return { ...options, execArgv: ['--require', ownFile, ...execArgv.map(String)] } as O;
  };

  const OwnWorker = workerThreads.Worker;
  class Worker extends OwnWorker {
    constructor(filename: string | URL, options?: workerThreads.WorkerOptions) {
      super(filename, withRegister(options));
    }
  }
  workerThreads.Worker = Worker;

  const fork = childProcess.fork;
  childProcess.fork = function (this: unknown, modulePath: string | URL, ...rest: unknown[]) {
    // fork(path, options) or fork(path, args, options), as Node reads them. Without options the
    // child takes this process's execArgv and environment as they are now — an app may have taken
    // lockweave/register out of either since it started — so they are checked all the same.
    const isOptions = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
    const at = isOptions(rest[0]) ? 0 : 1;
    if (rest[at] === undefined || rest[at] === null || isOptions(rest[at])) {
      if (at === 1 && rest.length === 0) rest.push(undefined); // no args: Node reads undefined as []
      rest[at] = withRegister(rest[at] ?? undefined);
    }
    return (fork as (...args: unknown[]) => childProcess.ChildProcess).call(this, modulePath, ...rest);
  } as typeof childProcess.fork;

  // `import { Worker } from 'node:worker_threads'` reads the built-in's exports as they were: brought up to date.
  nodeModule.syncBuiltinESMExports();
}
