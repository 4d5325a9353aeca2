// Which entries of a tsconfig's compilerOptions.plugins are lockweave's, and which one weaves.
// One rule for every reader of a tsconfig (tspc's program entry, the routes, the CLI), with no
// imports, so the Node loader can read it without loading anything else.
//
//   { "transform": "lockweave/transformer" }                            weaves (tspc's emit)
//   { "transform": "lockweave/transformer", "transformProgram": true }  only reports errors

export type PluginEntry = Record<string, unknown>;

export function isLockweaveTransform(specifier: unknown): boolean {
  return typeof specifier === 'string' && /^lockweave(\/transformer)?$/.test(specifier);
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
