// Reading the field named by `fieldName` out of a key's holder value.
//
// readField() is what woven code calls when the build knew no static type for the holder (the
// bundler and loader routes weave without a type checker, and a type can be `any`): it decides
// at run time exactly as the typed build decides at compile time, so every route locks the same
// key — a Map by .get(), a string as JSON text, anything else by property.
// readJsonField() is the string case alone, which builds with types call directly.
import { LockKeyError } from '../base/errors';

export function readField(holder: unknown, field: string): unknown {
  if (holder instanceof Map) return holder.get(field);
  return readJsonField(holder, field);
}

export function readJsonField(json: unknown, field: string): unknown {
  if (typeof json !== 'string') return json == null ? json : (json as Record<string, unknown>)[field];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // Not V8's message: it quotes the text, which is the caller's data (a token, a password).
    throw new LockKeyError(
      `the key's JSON text (${json.length} characters) does not parse as JSON; no lock was taken`,
      '',
    );
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  return (parsed as Record<string, unknown>)[field];
}
