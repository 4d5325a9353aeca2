// Everything a thorough logger could print of a value — every own field (enumerable or not), the
// whole cause chain, nested objects, util.inspect's and JSON's views — and a check that a secret is
// in none of it, as given, URL-encoded, or by its pieces.
import { inspect } from 'node:util';

export function exposed(value: unknown): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  const walk = (item: unknown, depth: number) => {
    if (depth > 12 || item === null || item === undefined) return;
    if (typeof item !== 'object' && typeof item !== 'function') return void parts.push(String(item));
    if (seen.has(item)) return;
    seen.add(item);
    for (const key of Object.getOwnPropertyNames(item)) {
      parts.push(key);
      try {
        walk((item as Record<string, unknown>)[key], depth + 1);
      } catch {
        // a getter that throws prints nothing
      }
    }
  };
  walk(value, 0);
  return `${parts.join(' ')}\n${inspect(value, { depth: Infinity, showHidden: true })}\n${safeJson(value)}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

export function assertNoSecret(
  t: { false(value: boolean, message?: string): void },
  text: string,
  secret: string,
  pieces: readonly string[] = [secret],
): void {
  for (const piece of [secret, encodeURIComponent(secret), ...pieces.filter((p) => p.length >= 4)]) {
    t.false(
      text.includes(piece),
      `printed ${JSON.stringify(piece)}: ${text.slice(Math.max(0, text.indexOf(piece) - 200), text.indexOf(piece) + 100)}`,
    );
  }
}
