// fast-check generators of malformed @redisLock tag text. Every generated tag is wrong by
// construction (a name near but not equal to a real one, a value outside the grammar, a
// repeated attribute, code where a name must be), so each must fail the build.
//
// Never generated: `*/` (it would end the comment), `@` (it would start another JSDoc tag) and
// newlines (a tag's lines need their ` * ` prefix) — those are separate, hand-written cases.
import fc from 'fast-check';

export const ATTRIBUTES = [
  'businessFlag',
  'keyName',
  'keyType',
  'fieldName',
  'lockTime',
  'retries',
  'waitTime',
  'onFail',
  'autoUnlock',
  'watchdog',
  'reentrant',
  'prefix',
  'fencing',
  'replicas',
  'redlock',
] as const;

const BASE = 'businessFlag=pay keyName=orderNo';
const isRealName = (name: string) => ATTRIBUTES.some((real) => real.toLowerCase() === name.toLowerCase());
const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_'.split(''));

/** An attribute name one edit away from a real one (and not a real one in any case). */
const nearName = fc
  .tuple(
    fc.constantFrom(...ATTRIBUTES),
    fc.nat(),
    letter,
    fc.constantFrom('delete', 'double', 'swap', 'replace', 'append'),
  )
  .map(([name, at, extra, edit]) => {
    const i = at % name.length;
    switch (edit) {
      case 'delete':
        return name.slice(0, i) + name.slice(i + 1);
      case 'double':
        return name.slice(0, i) + name[i] + name.slice(i);
      case 'swap':
        return i + 1 < name.length ? name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2) : name + extra;
      case 'replace':
        return name.slice(0, i) + extra + name.slice(i + 1);
      default:
        return name + extra;
    }
  })
  .filter((name) => name.length > 0 && !isRealName(name));

const typoTag = fc
  .tuple(nearName, fc.constantFrom('5', 'pay', 'orderNo', 'true'))
  .map(([name, value]) => `${BASE} ${name}=${value}`);

/** Values no time or count attribute accepts. */
const badNumber = fc.oneof(
  fc.stringMatching(/^[a-z]{1,6}$/),
  fc.integer({ min: 1, max: 10_000 }).map((n) => `-${n}`),
  fc.integer({ min: 1, max: 99 }).map((n) => `${n}h`),
  fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc.integer({ min: 1, max: 99 }).map((n) => `${n}x`),
);
const badNumberTag = fc
  .tuple(fc.constantFrom('lockTime', 'waitTime', 'retries'), badNumber)
  .map(([name, value]) => `${BASE} ${name}=${value}`);

const badBoolean = fc.stringMatching(/^[a-z0-9]{1,6}$/).filter((value) => value !== 'true' && value !== 'false');
const badBooleanTag = fc
  .tuple(fc.constantFrom('autoUnlock', 'watchdog', 'reentrant', 'fencing', 'redlock'), badBoolean)
  .map(([name, value]) => `${BASE} ${name}=${value}`);

const validExtra = fc.constantFrom(
  'lockTime=5',
  'retries=2',
  'waitTime=100ms',
  'watchdog=false',
  'autoUnlock=true',
  'reentrant=false',
  'prefix=P_',
  'businessFlag=pay',
  'keyName=orderNo',
);
const repeatedTag = fc
  .tuple(validExtra, fc.boolean())
  .map(([extra, twice]) => (twice ? `${BASE} ${extra} ${extra}` : `${BASE} ${extra}`))
  .filter((tag) => /(\w+)=.*\b\1=/.test(tag));

/** Text that is code, not a name: `process.exit`, calls, operators, quotes, escapes. */
const codeFragment = fc.oneof(
  fc.constantFrom(
    ');process.exit(1)//',
    "+require('fs')",
    '()',
    '[0]',
    ';',
    '`',
    "'",
    '\\',
    '!',
    '${x}',
    '(',
    ')',
    '{}',
    '=>1',
    '||1',
    '?.x',
    ',',
    '.',
  ),
  fc
    .array(
      fc.constantFrom(
        '(',
        ')',
        ';',
        '+',
        "'",
        '`',
        '[',
        ']',
        '{',
        '}',
        '!',
        '\\',
        '$',
        '<',
        '>',
        '%',
        '&',
        '|',
        '^',
        '~',
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((chars) => chars.join('')),
);
const injectedKeyTag = fc
  .tuple(codeFragment, fc.boolean())
  .map(([fragment, quoted]) =>
    quoted
      ? `businessFlag=pay keyName="orderNo${fragment.replace(/"/g, '')}"`
      : `businessFlag=pay keyName=orderNo${fragment}`,
  );
const injectedFlagTag = codeFragment
  .filter((fragment) => /[^A-Za-z0-9_.:-]/.test(fragment.replace(/"/g, '')))
  .map((fragment) => `businessFlag="pay${fragment.replace(/"/g, '\\"')}" keyName=orderNo`);
const injectedOnFailTag = codeFragment.map((fragment) => `businessFlag=pay keyName=orderNo onFail=Error${fragment}`);

export const badTag = fc.oneof(
  typoTag,
  badNumberTag,
  badBooleanTag,
  repeatedTag,
  injectedKeyTag,
  injectedFlagTag,
  injectedOnFailTag,
);

/** `count` malformed tags, reproducible from `seed`. */
export function sampleBadTags(seed: number, count: number): string[] {
  return fc
    .sample(badTag, { seed, numRuns: count })
    .filter((tag) => !tag.includes('*/') && !tag.includes('@') && !tag.includes('\n'));
}
