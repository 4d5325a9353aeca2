// The lock options' one table (runtime/base/option-table.ts): the runtime's defaults come from it,
// and a value a tag or the plugin's defaults accept is one the runtime accepts too. No Redis.
import test from 'ava';
import { KINDS } from '../../runtime/base/option-kinds';
import {
  OPTION_NAMES,
  OPTION_TABLE,
  optionsProblem,
  redlockClash,
  valuesProblem,
} from '../../runtime/base/option-table';
import { DEFAULT_LOCK_OPTIONS, type LockOptions } from '../../runtime/base/options';
import { readPluginOptions } from '../../transformer/plugin-config';

test("the defaults are the table's, in its order, and pass the runtime's checks", (t) => {
  t.deepEqual(Object.keys(DEFAULT_LOCK_OPTIONS), [...OPTION_NAMES]);
  for (const name of OPTION_NAMES) t.is(DEFAULT_LOCK_OPTIONS[name], OPTION_TABLE[name].default);
  t.is(optionsProblem({ ...DEFAULT_LOCK_OPTIONS }), undefined);
});

test("each option's example reads, and what a tag reads the runtime accepts", (t) => {
  const texts = [
    '0',
    '1',
    '3',
    '20',
    '1500ms',
    '2.5s',
    '2m',
    '-1',
    '1.5',
    'true',
    'false',
    'yes',
    '',
    'LOCK_',
    'a{b}',
    '{',
    'throw',
    'skip',
    '99999999999999999999',
    '25d',
  ];
  for (const name of OPTION_NAMES) {
    const { kind, example } = OPTION_TABLE[name];
    const read = KINDS[kind].read as (value: string, example: string) => ReturnType<typeof KINDS.count.read>;
    const written = example.slice(name.length + 1);
    t.true(example.startsWith(`${name}=`), example);
    t.true(read(written, example).ok, `${name}: its example ${example} reads`);
    for (const text of texts) {
      const result = read(text, example) as { ok: boolean; value?: unknown; problem?: string };
      if (!result.ok) continue;
      const options: LockOptions = { ...DEFAULT_LOCK_OPTIONS, [name]: result.value };
      // Each value alone: combinations (minHold past lockTime, redlock with fencing) have tests of their own.
      t.is(
        valuesProblem(options),
        undefined,
        `${name}=${text} reads as ${String(result.value)}, which the runtime refuses`,
      );
    }
  }
});

test("Redlock with fencing or replicas is refused by both halves, with the table's reasons", (t) => {
  for (const [clash, shown] of [
    [{ fencing: true }, 'fencing=true'],
    [{ replicas: 2 }, 'replicas=2'],
  ] as const) {
    const options = { ...DEFAULT_LOCK_OPTIONS, redlock: true, ...clash };
    const row = redlockClash(options)!;
    t.is(optionsProblem(options), `options redlock and ${row.name} cannot be combined: ${row.why}`);
    t.true(shown.startsWith(row.name));
    t.is(redlockClash({ ...clash }), undefined, 'without redlock, nothing clashes');
  }
  t.is(redlockClash({ redlock: true, replicas: 0, fencing: false }), undefined);
});

test("the plugin's defaults take every option of the table, read as a tag reads it", (t) => {
  const { defaults, errors } = readPluginOptions({
    defaults: {
      lockTime: '20s',
      retries: 5,
      waitTime: 2,
      onFail: 'skip',
      autoUnlock: 'false',
      watchdog: false,
      reentrant: true,
      prefix: 'APP_',
      fencing: true,
      replicas: '1',
      redlock: false,
    },
  });
  t.deepEqual(errors, []);
  t.deepEqual(defaults, {
    lockTime: 20_000,
    retries: 5,
    waitTime: 2_000,
    onFail: 'skip',
    autoUnlock: false,
    watchdog: false,
    reentrant: true,
    prefix: 'APP_',
    fencing: true,
    replicas: 1,
    redlock: false,
  });
  const refused = readPluginOptions({
    defaults: { lockTime: true, retries: false, fencing: 1, prefix: 3, onFail: 'Oops', waitTime: {} },
  }).errors.map((e) => e.message);
  t.deepEqual(
    refused.map((m) => m.replace(/ \(in the .*$/, '')),
    [
      '@redisLock: plugin option defaults.lockTime: true is not a duration',
      '@redisLock: plugin option defaults.retries: false is not a number',
      '@redisLock: plugin option defaults.fencing: 1 is not true or false',
      '@redisLock: plugin option defaults.prefix: 3 is not a string',
      '@redisLock: plugin option defaults.onFail: "Oops" must be "throw" or "skip" (a class can only be named in a tag)',
      '@redisLock: plugin option defaults.waitTime: {} is not a string, number or boolean',
    ],
  );
});
