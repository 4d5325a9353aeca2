// Which entries of a tsconfig's compilerOptions.plugins are lockweave's, which one weaves, and
// whether two entries' settings are the same. One rule for every reader of a tsconfig (tspc's
// program entry, the routes, the CLI). Its imports are the plugin options' reader and the option
// table, which the routes load to weave anyway; none loads TypeScript or a store.
//
//   { "transform": "lockweave/transformer" }                            weaves (tspc's emit)
//   { "transform": "lockweave/transformer", "transformProgram": true }  only reports errors

import { OPTION_TABLE, type OptionName } from '../runtime/base/option-table';
import { readPluginOptions } from './plugin-config';

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

/**
 * What of an entry decides a lock's key and settings, as text: equal for two entries exactly when
 * every route weaves the same defineLock() calls from them. The settings as read (plugin-config.ts),
 * so a spelling does not matter — `"lockTime": 20`, `"20s"` and `"20000ms"` are one lease, `"true"`
 * and `true` one flag, the key order none — with each duration written back one way (`"20s"`,
 * `"1500ms"`) for the messages that print it: `{"prefix":"shop:","defaults":{"lockTime":"20s"}}`.
 *
 * An option set to its built-in value is not the option left out: the woven call carries the one
 * set, and configure() at run time cannot change it, while it may change the one left out —
 * `configure({ prefix: 'app:' })` the key of a method woven without a prefix, not of one woven with
 * `"prefix": "LOCK_"`, and `configure({ defaults: { lockTime } })` likewise. So both are kept as
 * written: `{}` and `{"prefix":"LOCK_"}` differ (settingsNote says why, for the messages).
 *
 * Settings that cannot be read stay as written: their errors fail the build on every route that
 * weaves with them (plugin-config.ts), and such text never equals that of settings that can.
 */
export function settingsText(entry: Record<string, unknown>): string {
  const written = { prefix: entry.prefix, defaults: entry.defaults };
  const read = readPluginOptions(written);
  if (read.errors.length > 0) return JSON.stringify(sorted(written));
  const { prefix, ...defaults } = read.defaults;
  const names = (Object.keys(defaults) as Exclude<OptionName, 'prefix'>[]).sort();
  const shown = Object.fromEntries(names.map((name) => [name, shownDefault(name, defaults[name]!)]));
  return JSON.stringify({ prefix, defaults: names.length > 0 ? shown : undefined });
}

/**
 * Why entries whose settings differ only where one sets an option to its built-in value and another
 * leaves it out are not the same, for the message that says they differ; '' for any other difference.
 */
export function settingsNote(entries: readonly Record<string, unknown>[]): string {
  const read = entries.map((entry) => readPluginOptions({ prefix: entry.prefix, defaults: entry.defaults }));
  if (read.some((one) => one.errors.length > 0)) return '';
  const builtIn = (options: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(options).filter(([name, value]) => value !== OPTION_TABLE[name as OptionName].default),
    );
  const texts = read.map((one) => JSON.stringify(sorted(builtIn(one.defaults))));
  if (texts.some((text) => text !== texts[0])) return '';
  return (
    ' (one sets an option to its built-in value that another leaves out: configure() at run time may change the one ' +
    'left out — configure({ prefix }) the prefix, configure({ defaults }) a default — and not the one set, so the two ' +
    'may lock other keys, or with other settings; set it in both or in neither)'
  );
}

/** A default as settingsText shows it: a duration in whole seconds where it is, else in ms. */
function shownDefault(name: OptionName, value: string | number | boolean): string | number | boolean {
  const { kind } = OPTION_TABLE[name];
  if ((kind === 'duration' || kind === 'durationOrZero') && typeof value === 'number' && value > 0)
    return value % 1000 === 0 ? `${value / 1000}s` : `${value}ms`;
  return value;
}

/** `value` with the keys of every object in it sorted. */
function sorted(value: unknown): unknown {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
      )
    : value;
}
