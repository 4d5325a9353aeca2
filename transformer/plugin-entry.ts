// Which entries of a tsconfig's compilerOptions.plugins are lockweave's, and which one weaves.
// One rule for every reader of a tsconfig (tspc's program entry, the routes, the CLI), with no
// imports, so the Node loader can read it without loading anything else.
//
//   { "transform": "lockweave/transformer" }                            weaves (tspc's emit)
//   { "transform": "lockweave/transformer", "transformProgram": true }  only reports errors

export type PluginEntry = Record<string, unknown>;

/**
 * `lockweave`, `lockweave/transformer`, or a path to the transformer's file, which ts-patch takes as
 * well (`./node_modules/lockweave/dist/transformer/index.js`): an entry read by tspc but not by the
 * routes would have them lock other keys.
 */
const TRANSFORM =
  /^lockweave(?:\/transformer)?$|(?:^|[\\/])lockweave[\\/](?:dist[\\/])?transformer(?:[\\/]index(?:\.[cm]?[jt]s)?)?$/;

export function isLockweaveTransform(specifier: unknown): boolean {
  return typeof specifier === 'string' && TRANSFORM.test(specifier);
}

function lockweaveEntries(plugins: unknown): PluginEntry[] {
  const entries = Array.isArray(plugins) ? (plugins as PluginEntry[]) : [];
  return entries.filter((entry) => isLockweaveTransform(entry?.transform));
}

/** The entry tspc weaves with; undefined when there is none (a program entry alone weaves nothing). */
export function weavingEntry(plugins: unknown): PluginEntry | undefined {
  return lockweaveEntries(plugins).find((entry) => entry.transformProgram !== true);
}

/** The entry whose `prefix` and `defaults` apply: the weaving one, else any lockweave entry. */
export function optionsEntry(plugins: unknown): PluginEntry | undefined {
  return weavingEntry(plugins) ?? lockweaveEntries(plugins)[0];
}

/**
 * The settings of a route that takes no options of its own (lockweave/nest, lockweave/ts-jest): the
 * tsconfig entry's `prefix` and `defaults`, as on every route. Options given to the route itself
 * are refused — a prefix set only there would lock other keys than `lockweave check` and every
 * other route. `givenIn` says where they were given (nest-cli.json, the jest config).
 */
export function routeSettings(route: string, givenIn: string, options: unknown, plugins: unknown): PluginEntry {
  if (options !== undefined && (typeof options !== 'object' || options === null || Object.keys(options).length > 0)) {
    throw new Error(
      `${route} takes no options (${givenIn} gave ${JSON.stringify(options)}): set prefix and defaults in the tsconfig's plugin entry, { "transform": "lockweave/transformer", "prefix": … }, where every route reads them`,
    );
  }
  const { transform: _transform, transformProgram: _program, ...settings } = optionsEntry(plugins) ?? {};
  return settings;
}

/** What of an entry decides a lock's key and settings, as text that does not depend on key order. */
export function settingsText(entry: Record<string, unknown>): string {
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
        )
      : value;
  return JSON.stringify(sorted({ prefix: entry.prefix, defaults: entry.defaults }));
}
