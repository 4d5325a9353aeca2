// Clients passed to configure() are recognised by shape, not by `instanceof`: a client made by
// another copy of its library (another version beside the one lockweave would load, a second
// install) is another class, and the libraries are optional peers lockweave never imports to
// recognise them. Each family's file names the members only its clients have (ioredis-client.ts,
// node-redis-client.ts, glide-client.ts).

/** Whether `value` is an object whose members `names` are all functions. */
export function hasMethods(value: unknown, ...names: readonly string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const members = value as Record<string, unknown>;
  return names.every((name) => typeof members[name] === 'function');
}
