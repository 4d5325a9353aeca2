// The loader of lockweave/webpack and /rspack (webpack-like.ts): the bundler hooks' transform in
// a loader's form. The tsconfig chain the weave read becomes the module's dependency, so a changed
// `prefix` rebuilds it in watch mode and misses webpack's and rspack's persistent caches.
import { lockweaveHooks, type LockweaveBundlerOptions, type WovenModule } from './bundler-hooks';

/** The part of webpack's and rspack's loader context the loader uses. */
interface LoaderContext {
  /** The file with its query (`?raw` and the like say the file is not code). */
  readonly resource: string;
  getOptions(): LockweaveBundlerOptions;
  addDependency(file: string): void;
  callback(error: Error | null, code?: string, map?: unknown): void;
}

function lockweaveLoader(this: LoaderContext, source: string, map?: unknown): void {
  let woven: WovenModule | undefined;
  try {
    // The rule gives this loader only files whose text on disk may hold a tag (webpack-like.ts):
    // each is checked as it comes (a loader before this one may have dropped the comments).
    woven = lockweaveHooks(this.getOptions(), 'each-file').transform.handler.call(
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

export = lockweaveLoader;
