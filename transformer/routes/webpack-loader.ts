// The loader of lockweave/webpack and /rspack (webpack-like.ts): the bundler hooks' transform in
// a loader's form. The tsconfig chain the weave read becomes the module's dependency, so a changed
// `prefix` rebuilds it in watch mode and misses webpack's and rspack's persistent caches.
import { lockweaveHooks, type LockweaveBundlerOptions, type WovenModule } from './bundler-hooks';
import { isDataModule, type TypedModule } from './webpack-like';

/** The part of webpack's and rspack's loader context the loader uses. */
interface LoaderContext {
  /** The file, without the query: webpack and rspack give `?raw` and the like no meaning (the module's type says). */
  readonly resourcePath: string;
  /** The module being built (webpack's and rspack's own): its type says whether the rules made the file data. */
  readonly _module?: TypedModule;
  getOptions(): LockweaveBundlerOptions;
  addDependency(file: string): void;
  callback(error: Error | null, code?: string, map?: unknown): void;
}

function lockweaveLoader(this: LoaderContext, source: string, map?: unknown): void {
  // A file a rule made an asset (`type: 'asset/source'` for `?raw`, say): its text is data, handed on
  // as it is, tags and all. Any other module is code, whatever its query.
  if (isDataModule(this._module)) {
    this.callback(null, source, map);
    return;
  }
  let woven: WovenModule | undefined;
  try {
    // The rule gives this loader only files whose text on disk may hold a tag (webpack-like.ts):
    // each is checked as it comes (a loader before this one may have dropped the comments).
    woven = lockweaveHooks(this.getOptions(), 'each-file').transform.handler.call(
      { addWatchFile: (file) => this.addDependency(file) },
      source,
      this.resourcePath,
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
