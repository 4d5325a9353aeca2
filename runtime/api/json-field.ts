// keyType=JSON on a value whose static type is a string: the field is read from the parsed
// JSON at run time (a Map or a plain object is read by direct access in the woven code).
import { LockKeyError } from './errors';

export function readJsonField(json: unknown, field: string): unknown {
  if (typeof json !== 'string') return json == null ? json : (json as Record<string, unknown>)[field];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new LockKeyError(`the key's JSON text does not parse (${(error as Error).message}); no lock was taken`, '');
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  return (parsed as Record<string, unknown>)[field];
}
