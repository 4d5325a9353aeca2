// The loader of lockweave/webpack and /rspack (webpack-like.ts): the bundler hooks' transform in
// a loader's form. The tsconfig chain the weave read becomes the module's dependency, so a changed
// `prefix` rebuilds it in watch mode and misses webpack's and rspack's persistent caches.
import { mayHoldTag } from '../parse/find-tags';
import { lockweaveHooks, type LockweaveBundlerOptions, type WovenModule } from './bundler-hooks';
import { mayHoldTagOnDisk } from './webpack-like';

/** The part of webpack's and rspack's loader context the loader uses. */
interface LoaderContext {
  /** The file with its query (`?raw` and the like say the file is not code). */
  readonly resource: string;
  readonly resourcePath: string;
  getOptions(): LockweaveBundlerOptions;
  addDependency(file: string): void;
  callback(error: Error | null, code?: string, map?: unknown): void;
}

function lockweaveLoader(this: LoaderContext, source: string, map?: unknown): void {
  let woven: WovenModule | undefined;
  try {
    // The rule gives this loader only files whose text on disk may hold a tag (webpack-like.ts):
    // handed one without, a loader before it dropped the comments, and the methods would run unlocked.
    if (!mayHoldTag(source) && mayHoldTagOnDisk(this.resourcePath)) throw strippedError(this.resourcePath);
    woven = lockweaveHooks(this.getOptions()).transform.handler.call(
      { addWatchFile: (file) => this.addDependency(file) },
      source,
      this.resource,
    );
  } catch (error) {
    // A tag error, or the tags stripped: the build fails with the reason and the file.
    this.callback(error instanceof Error ? error : new Error(String(error)));
    return;
  }
  if (woven) this.callback(null, woven.code, woven.map ?? undefined);
  else this.callback(null, source, map);
}

function strippedError(file: string): Error {
  return new Error(
    `lockweave (webpack, rspack): ${file} holds @redisLock tags, but a loader that ran before lockweave's handed it on without them, ` +
      'so its methods would run unlocked. lockweave must see the file as it is on disk: its rule is put last so that its ' +
      "loader runs first of the 'pre' loaders; a rule added after it (by a plugin listed after lockweave's) runs before it — " +
      "list lockweave's plugin last, or drop that loader for TypeScript files.",
  );
}

export = lockweaveLoader;
