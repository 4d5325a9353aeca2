// Two copies of lockweave's runtime in one process — a library that brought its own, a bundle
// with one per chunk — each keep their own settings. The app's configure() reaches one of them;
// the other would lock on the default Redis (REDIS_URL, else 127.0.0.1:6379) under the default
// prefix, with no error — or, configured by its library, on another server or under another
// prefix: the same business locked under two keys, both bodies running. So the copies see each
// other through a registry on globalThis, and a mix is refused, whichever comes first:
//   - a copy never configured does not lock on the default while another copy is configured, and
//     configure() — any call — is refused while another copy, never configured, locks on the default;
//   - copies that are all configured lock only while they agree on what decides a lock's key and
//     server (the server and its database and key prefix, the prefix, the Redlock servers and the
//     redlock default). A lock in a copy that disagrees with another is refused, naming both.
// Copies none of which was ever configured agree by construction, and are left alone.
//
// Threads: a worker thread loads a copy of its own, in a realm of its own, which that registry
// cannot see; configure() in the main thread does not reach it, and its locks would go to the
// default Redis under the default prefix, beside the main thread's on the configured one. So
// configure() hands what it configured to the threads started after it (worker_threads'
// environment data), and a worker's copy locks only configured alike: never configured, it is
// refused; configured, it must agree as a second copy must (a client or store passed in cannot
// cross threads: there the server's text is compared only where it names one).

/** What decides where a copy's locks go and under which keys, as configure() left it. */
export interface Placement {
  /** The server, as text that names no credential; `object` when only its identity tells (a store, a client). */
  readonly server: { readonly text: string; readonly object?: object };
  readonly prefix: string;
  /** The Redlock servers, as text; undefined when none are configured. */
  readonly redlockServers: string | undefined;
  /** The redlock default. */
  readonly redlock: boolean;
}

/** One copy of the runtime: where it is loaded from, and how it chose its server. */
interface Copy {
  readonly where: string;
  configured: boolean;
  onDefault: boolean;
  /** Set by configure() (older copies have none: they marked a copy configured only for `redis` or `store`). */
  placement?: Placement;
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
  'Install one copy (`npm ls lockweave`, then `npm dedupe` or align the versions), or configure each copy the same way';

/** What a thread hands the threads it starts of its placement: plain data (worker_threads clones it). */
interface ThreadPlacement {
  readonly server: string;
  /** Only the object itself tells its server (a client or store passed in), which another thread cannot have. */
  readonly serverIsObject: boolean;
  readonly prefix: string;
  readonly redlockServers: string | undefined;
  readonly redlock: boolean;
}

const THREAD_PLACEMENT = 'lockweave.placement';

/**
 * The placement of the thread that started this one, if it configured lockweave before: read once,
 * as a Placement whose server, where only an object named it there, is an object here too (not compared).
 */
let startedBy: Placement | undefined | null = null;

function workerThreads(): typeof import('node:worker_threads') | undefined {
  try {
    return require('node:worker_threads') as typeof import('node:worker_threads');
  } catch {
    return undefined; // no threads where this runs
  }
}

function placementOfStarter(): Placement | undefined {
  if (startedBy !== null) return startedBy;
  const threads = workerThreads();
  const given = threads && !threads.isMainThread ? threads.getEnvironmentData?.(THREAD_PLACEMENT) : undefined;
  if (given === null || typeof given !== 'object') return (startedBy = undefined);
  const shared = given as ThreadPlacement;
  return (startedBy = {
    server: { text: shared.server, object: shared.serverIsObject ? shared : undefined },
    prefix: shared.prefix,
    redlockServers: shared.redlockServers,
    redlock: shared.redlock,
  });
}

/** Refused unless this copy, in a worker thread, is configured as the thread that started it was. */
function assertAgreesWithStarter(): void {
  const starter = placementOfStarter();
  if (!starter) return;
  if (!self.configured)
    throw new Error(
      `lockweave: this worker thread's lockweave (${self.where}) was never configured, and would lock on the default ` +
        `Redis (REDIS_URL, else 127.0.0.1:6379) under the default prefix, while the thread that started it configured ` +
        `lockweave (${describePlacement(starter)}): the same business would be locked under two keys or on two servers. ${THREAD_FIX}.`,
    );
  // A client or store passed in cannot cross threads: where only the object names the server, it is not compared.
  const difference = placementDifference(self.placement!, starter, { objectsCompared: false });
  if (difference)
    throw new Error(
      `lockweave: this worker thread's lockweave (${self.where}) is configured otherwise than the thread that started it: ` +
        `${difference}. The same business would be locked under two keys or on two servers. ${THREAD_FIX}.`,
    );
}

const THREAD_FIX = 'Call configure() in each worker thread with the settings the main thread gives it';

/** Hands `placement` to the threads this one starts from now on (see Threads above). */
function shareWithThreads(placement: Placement): void {
  placementOfStarter(); // read before this thread's own placement takes its place in what workers see
  const shared: ThreadPlacement = {
    server: placement.server.text,
    serverIsObject: placement.server.object !== undefined,
    prefix: placement.prefix,
    redlockServers: placement.redlockServers,
    redlock: placement.redlock,
  };
  workerThreads()?.setEnvironmentData?.(THREAD_PLACEMENT, shared);
}

/** Called by every configure(), before it changes anything, with what the call leaves the settings at. */
export function claimConfigured(placement: Placement): void {
  const onDefault = others().find((copy) => copy.onDefault && !copy.configured);
  if (onDefault)
    throw new Error(
      `lockweave: another copy of lockweave (${onDefault.where}) already locks on the default Redis, never configured (with the default prefix); ` +
        `configuring this one (${self.where}) would leave the two locking the same business on different keys or servers. ${FIX}.`,
    );
  self.configured = true;
  self.onDefault = false;
  self.placement = placement;
  shareWithThreads(placement);
}

/** Called when this copy is about to lock on the default Redis: refused if it was never configured and another was. */
export function claimDefault(): void {
  if (self.configured) return; // compared by its placement instead (assertCopiesAgree)
  assertAgreesWithStarter();
  const configured = others().find((copy) => copy.configured);
  if (configured)
    throw new Error(
      `lockweave: this copy of lockweave (${self.where}) was never configured, and would lock on the default Redis ` +
        `(REDIS_URL, else 127.0.0.1:6379) under the default prefix, while another copy (${configured.where}) was configured` +
        `${configured.placement ? ` (${describePlacement(configured.placement)})` : ''}. ${FIX}.`,
    );
  self.onDefault = true;
}

/**
 * Called before each lock (and inspect()): this copy and every other agree on what decides a
 * lock's key and server, or the lock is refused. One copy alone — the common case — costs one
 * comparison.
 */
export function assertCopiesAgree(): void {
  assertAgreesWithStarter();
  if (!Array.isArray(copies) || copies.length < 2) return;
  if (!self.configured) return claimDefault();
  const mine = self.placement!;
  for (const other of others()) {
    if (!other.configured) {
      // Only a copy that skipped the checks here (an older lockweave) gets here: a newer one, never
      // configured, refuses to lock beside a configured copy, and the other way round.
      if (other.onDefault)
        throw new Error(
          `lockweave: another copy of lockweave (${other.where}) locks on the default Redis, never configured (with the default prefix), ` +
            `while this one (${self.where}) is configured. ${FIX}.`,
        );
      continue;
    }
    const difference = other.placement
      ? placementDifference(mine, other.placement)
      : 'that copy is an older lockweave, which does not say which prefix and server it locks with';
    if (difference)
      throw new Error(
        `lockweave: two copies of lockweave in this process are configured differently — this one (${self.where}) and ` +
          `another (${other.where}): ${difference}. The same business would be locked under two keys or on two servers. ${FIX}.`,
      );
  }
}

/**
 * How two placements differ, said for a message (no credentials: the texts name none), or undefined.
 * `objectsCompared: false` (another thread's placement): a server only an object names is not compared.
 */
function placementDifference(here: Placement, there: Placement, { objectsCompared = true } = {}): string | undefined {
  const differences: string[] = [];
  const byObject = here.server.object !== undefined || there.server.object !== undefined;
  const sameServer = byObject
    ? !objectsCompared || here.server.object === there.server.object
    : here.server.text === there.server.text;
  if (!sameServer)
    differences.push(
      here.server.text === there.server.text
        ? `the server is given as two different objects, ${here.server.text} here and there (only the same object tells the same keys: pass one to both)`
        : `the server is ${here.server.text} here, ${there.server.text} there`,
    );
  if (here.prefix !== there.prefix)
    differences.push(`the prefix is ${JSON.stringify(here.prefix)} here, ${JSON.stringify(there.prefix)} there`);
  if (here.redlockServers && there.redlockServers && here.redlockServers !== there.redlockServers)
    differences.push(`the Redlock servers are ${here.redlockServers} here, ${there.redlockServers} there`);
  if (here.redlock !== there.redlock)
    differences.push(`the redlock default is ${here.redlock} here, ${there.redlock} there`);
  return differences.length ? differences.join('; ') : undefined;
}

function describePlacement(placement: Placement): string {
  return `on ${placement.server.text}, prefix ${JSON.stringify(placement.prefix)}${placement.redlock ? ', redlock by default' : ''}`;
}
