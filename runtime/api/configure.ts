// configure() and close(): the process-wide settings, which store locks go to, and when it changes.
//
// Without a configure() call the runtime connects lazily, on the first lock, to REDIS_URL or
// redis://127.0.0.1:6379. The parts live beside this file: settings.ts (the settings and their
// version), configure-checks.ts (what is refused), store-factory.ts (from a client, URL or options
// to a store), owned-connection.ts (the settings of connections the runtime opens), store-slot.ts
// (a store's lifetime).
import { DEFAULT_LOCK_OPTIONS, mergeOptions, type LockOptions } from '../base/options';
import { LockError } from '../base/errors';
import { plainCopy } from '../base/redis-options';
import { assertWovenAtFirstLock } from '../base/weave-mark';
import { guardedLogger } from '../lock/events';
import type { LockStore } from '../store/lock-store';
import { assertConfigureOptions } from './configure-checks';
import { assertCopiesAgree, claimConfigured } from './runtime-copies';
import { settings, type ConfigureOptions } from './settings';
import { assertOwnedConnections, copyPlacement, createRedlockStore, createStore } from './store-factory';
import { StoreSlot, type StoreUse } from './store-slot';

export { currentDefaults, currentLogger, settingsVersion, type ConfigureOptions, type RedlockServer } from './settings';
export type { StoreUse } from './store-slot';

/**
 * Changes the settings this call names and keeps the others: a second module that sets only a
 * logger changes only the logger, never the Redis the locks go to. The connection changes only
 * to one this call names (`redis` or `store`, both then taken from this call); a call that names
 * neither — a releaseChannel, a logger — keeps the server, and a new release channel is opened on
 * it. The store a call replaces serves the acquisitions and leases already under way and closes
 * when the last of them ends. A key given `undefined` names nothing and is refused
 * (configure-checks.ts); any call configures this copy of the runtime (runtime-copies.ts).
 */
export function configure(options: ConfigureOptions): void {
  // Validated before anything changes: a refused call leaves the settings as they were.
  assertConfigureOptions(options);
  assertOwnedConnections(options);
  const names = (key: keyof ConfigureOptions) => Object.hasOwn(options, key);
  const merged: ConfigureOptions = { ...settings.options, ...options };
  // Defaults merge one by one: a module that tunes waitTime must not take away another's redlock: true
  // (its locks would move to the one Redis) or fencing: true.
  if (names('defaults')) merged.defaults = { ...settings.options.defaults, ...plainCopy(options.defaults) };
  if (options.redlock) merged.redlock = Object.freeze([...options.redlock]); // the caller's array changing later changes nothing
  const newConnection = names('redis') || names('store');
  // Both from the call that names one (a new `redis` must not stay behind an earlier `store`, which
  // takes precedence), and otherwise both from the settings: never undefined for "the default".
  merged.redis = newConnection ? plainCopy(options.redis) : settings.options.redis;
  merged.store = newConnection ? options.store : settings.options.store;
  const mergedDefaults = mergeOptions(DEFAULT_LOCK_OPTIONS, merged.defaults as Partial<LockOptions> | undefined, {
    prefix: merged.prefix,
  });
  // Any call, not only one that names the server: a copy configured only with a prefix or
  // `redlock: true` locks under other keys or elsewhere than a copy never configured beside it.
  claimConfigured(copyPlacement(merged, mergedDefaults));
  const channelChanged = names('releaseChannel') && options.releaseChannel !== settings.options.releaseChannel;
  // A store passed in has its own channels: a new releaseChannel does not replace it.
  if (settings.slot && (newConnection ? settings.slot.store !== merged.store : channelChanged && !merged.store)) {
    settings.slot.retire();
    settings.slot = undefined;
  }
  if (names('redlock') || channelChanged) {
    settings.redlockSlot?.retire();
    settings.redlockSlot = undefined;
  }
  settings.options = merged;
  settings.defaults = mergedDefaults;
  if (names('logger')) settings.logger = options.logger && guardedLogger(options.logger);
  settings.version++;
}

/** Closes the connections the runtime opened. The next lock reconnects lazily. */
export async function close(): Promise<void> {
  const stores = [settings.slot?.store, settings.redlockSlot?.store];
  settings.slot = undefined;
  settings.redlockSlot = undefined;
  settings.version++;
  await Promise.all(stores.map((store) => store?.close()));
}

export function currentStore(): LockStore {
  return currentSlot().store;
}

function currentSlot(): StoreSlot {
  return (settings.slot ??= newSlot(() => createStore(settings.options)));
}

/**
 * A store is made for the first lock after start (or close()): jest has loaded the test file's imports by
 * then, and code given on stdin or to ts-node is known (base/weave-mark.ts).
 */
function newSlot(create: () => LockStore): StoreSlot {
  assertWovenAtFirstLock();
  return new StoreSlot(create());
}

export function useCurrentStore(): StoreUse {
  assertCopiesAgree();
  return currentSlot().use();
}

/**
 * The Redlock store, for a lock with `redlock: true`. Without Redlock servers the call fails, loudly:
 * never the single Redis instead, which would not be the lock the method asked for.
 */
export function useRedlockStore(key: string, site: string | undefined): StoreUse {
  assertCopiesAgree();
  const servers = settings.options.redlock;
  if (!servers) {
    throw new LockError(
      `lockweave: ${site ?? 'a lock'} asks for Redlock (redlock: true) on ${key}, but no Redlock servers are configured; ` +
        'call configure({ redlock: [url1, url2, url3] }) first',
      key,
    );
  }
  return (settings.redlockSlot ??= newSlot(() => createRedlockStore(servers, settings.options.releaseChannel))).use();
}
