// The plugin entry's own options in tsconfig: `prefix` and `defaults`. They become part of every
// woven defineLock() call (below the tag's own attributes), so a bad one is a build error, not a runtime one.
import { Code, LockweaveDiagnostic, type Span } from './diagnostics';
import { KINDS, type JsonScalar } from '../runtime/base/option-kinds';
import { OPTION_NAMES, OPTION_TABLE, type OptionName } from '../runtime/base/option-table';
import type { LockOptions } from '../runtime/base/options';
import { withoutUrlCredentials } from '../runtime/base/url-credentials';
import { didYouMean } from './check/suggest';

export interface PluginOptions {
  /** Options every woven lock gets unless its tag sets them. */
  readonly defaults: Partial<LockOptions>;
  readonly errors: readonly LockweaveDiagnostic[];
}

/** Keys ts-patch itself reads from a plugin entry. */
const TS_PATCH_KEYS = [
  'transform',
  'after',
  'afterDeclarations',
  'name',
  'type',
  'transformProgram',
  'import',
  'isEsm',
  'tsConfig',
  'resolvePathAliases',
];

const NOWHERE: Span = { file: undefined, start: 0, length: 0 };

export function readPluginOptions(config: Record<string, unknown> | undefined): PluginOptions {
  const errors: LockweaveDiagnostic[] = [];
  const report = (text: string) =>
    errors.push(
      new LockweaveDiagnostic(
        Code.PluginConfig,
        // The value quoted may be a Redis URL put where it does not belong: its password is not printed.
        `plugin option ${withoutUrlCredentials(text)} (in the "lockweave/transformer" entry of tsconfig "plugins")`,
        NOWHERE,
      ),
    );
  const defaults: Partial<LockOptions> = {};
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
      if (!(OPTION_NAMES as readonly string[]).includes(name)) {
        report(`defaults.${name} is not an attribute with a default; ${didYouMean(name, OPTION_NAMES)}`);
        continue;
      }
      readDefault(name as OptionName, value, defaults, (text) => report(`defaults.${text}`));
    }
  }
  return { defaults, errors };
}

function readDefault(
  name: OptionName,
  value: unknown,
  into: Partial<LockOptions>,
  report: (text: string) => void,
): void {
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  if (!scalar) return report(`${name}: ${JSON.stringify(value)} is not a string, number or boolean`);
  const { kind, example } = OPTION_TABLE[name];
  const wrongType = KINDS[kind].jsonProblem(value as JsonScalar);
  if (wrongType) return report(`${name}: ${wrongType}`);
  const result = KINDS[kind].read(value as JsonScalar, example);
  if (!result.ok) return report(`${name}: ${result.problem}`);
  (into as Record<string, unknown>)[name] = result.value;
}
