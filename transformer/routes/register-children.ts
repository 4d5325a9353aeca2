// Threads and processes this one starts: a worker thread (worker_threads.Worker) has a loader of
// its own — module.registerHooks hooks are the thread's — and a forked process its own preloads.
// Both take this process's command-line options unless told otherwise, lockweave/register among
// them. One started with an `execArgv` of its own that leaves lockweave/register out runs its
// TypeScript stripped by Node, tags and all, and an unwoven tagged method there never loads the
// runtime that would refuse it. So lockweave/register goes first into such an `execArgv`: the child's
// TypeScript is woven as this process's is, and checked by the same rules.
import childProcess = require('node:child_process');
import nodeModule = require('node:module');
import workerThreads = require('node:worker_threads');
import { preloadsOf, resolvesTo } from './later-hooks';

/** Called by lockweave/register as it loads, with its own file. */
export function weaveChildren(ownFile: string): void {
  const withRegister = <O>(options: O): O => {
    const execArgv = (options as { execArgv?: unknown } | undefined)?.execArgv;
    if (!Array.isArray(execArgv)) return options; // this process's options, lockweave/register included
    const preloaded = preloadsOf(execArgv.map(String)).some(({ specifier }) => resolvesTo(specifier, ownFile));
    return preloaded ? options : { ...options, execArgv: ['--require', ownFile, ...execArgv] };
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
    // fork(path, options) or fork(path, args, options): the options are the last object given.
    const at = rest.findIndex((value) => value !== null && typeof value === 'object' && !Array.isArray(value));
    if (at >= 0) rest[at] = withRegister(rest[at]);
    return (fork as (...args: unknown[]) => childProcess.ChildProcess).call(this, modulePath, ...rest);
  } as typeof childProcess.fork;

  // `import { Worker } from 'node:worker_threads'` reads the built-in's exports as they were: brought up to date.
  nodeModule.syncBuiltinESMExports();
}
