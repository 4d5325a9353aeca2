// Clients passed to configure() are recognised by shape, not by `instanceof`: a client made by
// another copy of its library (another version beside the one lockweave would load, a second
// install) is another class, and the libraries are optional peers lockweave never imports to
// recognise them. Each family's file names the members only its clients have (ioredis-client.ts,
// node-redis-client.ts, glide-client.ts).

/** Whether `value` is an object whose members `names` are all functions. */
export function hasMethods(value: unknown, ...names: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const members = value as Record<string, unknown>;
  return names.every((name) => typeof members[name] === 'function');
}

/**
 * An export of the library that made `client`, found among the loaded CommonJS modules by the
 * client's class: a value of that copy is the one its client accepts (an ioredis Command, a GLIDE
 * Script, whose copy's native core holds it). Only a module that exports `name` is read further,
 * for the client's class among its exports (ioredis's Cluster is a named export, its Redis the
 * default). Undefined when not found (bundled, or loaded as an ES module).
 */
export function libraryExport<T>(client: object, name: string): T | undefined {
  // The client's exact class, by its prototype: not the `constructor` property (ioredis mixes
  // EventEmitter into its classes, and the mixin's replaces Redis's own), and not `instanceof`
  // (any module exporting EventEmitter and a `name` would match). A subclass finds nothing.
  const prototype = Object.getPrototypeOf(client) as object | null;
  const isClass = (value: unknown): boolean =>
    typeof value === 'function' && (value as { prototype?: unknown }).prototype === prototype;
  const className = (prototype as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const loaded = typeof require === 'function' && require.cache ? Object.values(require.cache) : [];
  for (const module of loaded) {
    try {
      const exports = module?.exports as Record<string, unknown> | undefined;
      if (!exports || (typeof exports !== 'object' && typeof exports !== 'function')) continue;
      if (typeof exports[name] !== 'function') continue;
      const named = typeof className === 'string' ? exports[className] : undefined;
      if (isClass(exports) || isClass(exports.default) || isClass(named) || Object.values(exports).some(isClass))
        return exports[name] as T;
    } catch {
      // A module whose exports throw when read is not the library.
    }
  }
  return undefined;
}

/** A client's timeout error, by its class's name: node-redis's (v5's has no message) and GLIDE's. */
export function isTimeoutError(error: unknown): boolean {
  return error instanceof Error && error.constructor.name === 'TimeoutError';
}
