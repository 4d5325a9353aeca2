// The plugin entry's own options in tsconfig: `prefix` and `defaults`. They become part of every
// woven spec (below the tag's own attributes), so a bad one is a build error, not a runtime one.
import { Code, LockweaveDiagnostic, type Span } from './diagnostics';
import { OPTION_NAMES, type SpecOptions } from './check/attributes';
import { didYouMean } from './check/suggest';
import { readBoolean, readDuration, readPrefix, readReplicas, readRetries, type Result } from './check/values';

export interface PluginOptions {
  /** Options every spec gets unless its tag sets them. */
  readonly defaults: SpecOptions;
  readonly errors: readonly LockweaveDiagnostic[];
}

/** Keys ts-patch itself reads from a plugin entry. */
const TS_PATCH_KEYS = ['transform', 'after', 'afterDeclarations', 'name', 'type', 'transformProgram', 'import', 'isEsm', 'tsConfig', 'resolvePathAliases'];

const DEFAULTABLE = OPTION_NAMES;

const NOWHERE: Span = { file: undefined, start: 0, length: 0 };

export function readPluginOptions(config: Record<string, unknown> | undefined): PluginOptions {
  const errors: LockweaveDiagnostic[] = [];
  const report = (text: string) => errors.push(new LockweaveDiagnostic(Code.PluginConfig, `plugin option ${text} (in the "lockweave/transformer" entry of tsconfig "plugins")`, NOWHERE));
  const defaults: SpecOptions = {};
  for (const key of Object.keys(config ?? {})) {
    if (TS_PATCH_KEYS.includes(key) || key === 'defaults') continue;
    if (key !== 'prefix') report(`${key} is unknown; ${didYouMean(key, ['prefix', 'defaults'])}`);
  }
  if (config?.prefix !== undefined) readDefault('prefix', config.prefix, defaults, report);
  const given = config?.defaults;
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    report('defaults must be an object such as { "lockTime": "20s", "retries": 5 }');
  } else if (given) {
    for (const [name, value] of Object.entries(given)) {
      if (!(DEFAULTABLE as readonly string[]).includes(name)) {
        report(`defaults.${name} is not an attribute with a default; ${didYouMean(name, DEFAULTABLE)}`);
        continue;
      }
      readDefault(name as (typeof DEFAULTABLE)[number], value, defaults, (text) => report(`defaults.${text}`));
    }
  }
  return { defaults, errors };
}

function readDefault(name: (typeof DEFAULTABLE)[number], value: unknown, into: SpecOptions, report: (text: string) => void): void {
  const take = <T>(result: Result<T>, set: (v: T) => void) => (result.ok ? set(result.value) : report(`${name}: ${result.problem}`));
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  if (!scalar) return report(`${name}: ${JSON.stringify(value)} is not a string, number or boolean`);
  switch (name) {
    case 'lockTime':
    case 'waitTime':
      return typeof value === 'boolean' ? report(`${name}: ${value} is not a duration`) : take(readDuration(value), (v) => (into[name] = v));
    case 'retries':
      return typeof value === 'boolean' ? report(`${name}: ${value} is not a number`) : take(readRetries(value), (v) => (into.retries = v));
    case 'onFail':
      return value === 'throw' || value === 'skip' ? void (into.onFail = value) : report(`onFail: ${JSON.stringify(value)} must be "throw" or "skip" (a class can only be named in a tag)`);
    case 'autoUnlock':
    case 'watchdog':
    case 'reentrant':
    case 'fencing':
    case 'redlock':
      return typeof value === 'number' ? report(`${name}: ${value} is not true or false`) : take(readBoolean(value), (v) => (into[name] = v));
    case 'prefix':
      return typeof value !== 'string' ? report(`prefix: ${JSON.stringify(value)} is not a string`) : take(readPrefix(value), (v) => (into.prefix = v));
    case 'replicas':
      return typeof value === 'boolean' ? report(`replicas: ${value} is not a number`) : take(readReplicas(value), (v) => (into.replicas = v));
  }
}
