// Reading the attributes that name the key (businessFlag, keyType) into plain data. The lock
// options' readers belong to their table (runtime/base/option-kinds.ts). Each reader returns the
// value or a sentence saying what is wrong; the caller owns the position.
import { businessFlagProblem } from '../../runtime/base/key-names';
import { bad, ok, type Result } from '../../runtime/base/option-kinds';

export type { Result };

export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// The runtime's own rule (runtime/base/key-names.ts), so a tag, defineLock() and withLock()
// accept exactly the same flags.
export function readBusinessFlag(value: string): Result<string> {
  const problem = businessFlagProblem(value);
  return problem === undefined ? ok(value) : bad(problem);
}

export type KeyType = 'VALUE' | 'CLASS' | 'JSON';

export function readKeyType(value: string): Result<KeyType> {
  return value === 'VALUE' || value === 'CLASS' || value === 'JSON'
    ? ok(value)
    : bad(
        `"${value}" is not a keyType; use VALUE, CLASS or JSON (or leave it out: it is inferred from the key's type)`,
      );
}
