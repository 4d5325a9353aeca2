// Two copies of lockweave's runtime in one process — a library that brought its own, a bundle
// with one per chunk — each keep their own settings. The app's configure() reaches one of them;
// the other would lock on the default Redis (REDIS_URL, else 127.0.0.1:6379), a server nobody
// named for it, with no error. So the copies see each other through a registry on globalThis,
// and the mix is refused, whichever comes first: a copy never configured does not take the
// default while another copy is configured, and configure() is refused while another copy locks
// on the default. Copies that are all configured, or none of them, are left alone.

/** One copy of the runtime: where it is loaded from, and how it chose its server. */
interface Copy {
  readonly where: string;
  configured: boolean;
  onDefault: boolean;
}

const REGISTRY: unique symbol = Symbol.for('lockweave.runtimeCopies');

const self: Copy = {
  where: typeof __filename === 'string' ? __filename : 'a bundle',
  configured: false,
  onDefault: false,
};
const copies = ((globalThis as Record<symbol, Copy[] | undefined>)[REGISTRY] ??= []);
if (Array.isArray(copies)) copies.push(self);

function others(): Copy[] {
  return Array.isArray(copies) ? copies.filter((copy) => copy !== self) : [];
}

const FIX =
  'Install one copy (`npm ls lockweave`, then `npm dedupe` or align the versions), or call configure() in each copy';

/** Called by a configure() that names the server (`redis` or `store`), before it changes anything. */
export function claimConfigured(): void {
  const onDefault = others().find((copy) => copy.onDefault);
  if (onDefault)
    throw new Error(
      `lockweave: another copy of lockweave (${onDefault.where}) already locks on the default Redis, never configured; ` +
        `configuring this one (${self.where}) would leave the two on different servers. ${FIX}.`,
    );
  self.configured = true;
  self.onDefault = false;
}

/** Called when this copy, never configured, is about to lock on the default Redis. */
export function claimDefault(): void {
  const configured = others().find((copy) => copy.configured);
  if (configured)
    throw new Error(
      `lockweave: this copy of lockweave (${self.where}) was never configured, and would lock on the default Redis ` +
        `(REDIS_URL, else 127.0.0.1:6379), while another copy (${configured.where}) was configured. ${FIX}.`,
    );
  self.onDefault = true;
}
