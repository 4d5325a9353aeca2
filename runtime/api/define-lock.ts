// The entry point of woven code. A woven module calls defineLock() once per tagged method,
// at module load, with the options the tag spelled out; each call of the method is then one
// `return pay_lock_1.run(key, async () => { <the original body> })`. Options are resolved once
// and cached until the next configure().
import { currentDefaults, currentLogger, settingsVersion, useCurrentStore, useRedlockStore, type StoreUse } from './configure';
import { mergeOptions, type LockOptions } from '../base/options';
import { acquireLease, type FailureClass } from '../lock/acquire';
import { findHeld } from '../lock/held-locks';
import { compositeLockKey, lockKey } from '../lock/key';
import { NestedLease, type AnyLease, type Lease, type NestedEntry } from '../lock/lease';
import { LockAcquireError } from '../base/errors';
import { businessFlagProblem } from '../base/key-names';

/** What the transformer writes into defineLock(): the tag's attributes, with times in ms. */
export interface LockSpec extends Partial<LockOptions> {
  /** Where the tag stands, for log lines and errors: `OrderService.pay`. */
  readonly site?: string;
  readonly businessFlag: string;
}

export type { FailureClass };

export class MethodLock {
  private resolvedFor = -1;
  private options!: LockOptions;

  constructor(readonly spec: LockSpec) {
    // The tag's own rule (base/key-names.ts): a flag the tag would refuse could make a key that
    // reads as another (flag, value) pair, or carry a brace into the key.
    const badFlag = businessFlagProblem(spec?.businessFlag);
    if (badFlag) throw new TypeError(`lockweave: ${badFlag}${spec?.site ? ` (${spec.site})` : ''}`);
    this.resolve(); // fail at module load, not at the first call, if the spec is invalid
  }

  /**
   * What a woven method body is: takes the lock on `value`, runs `body` holding it, releases it
   * when the promise `body` returned settles, and passes on its result or error unchanged.
   * With onFail=skip and the lock busy, resolves `undefined` without running `body`.
   */
  run<T>(value: unknown, body: () => Promise<T>, onFail?: FailureClass): Promise<T | undefined> {
    return runAcquired(this.acquire(value, onFail), body);
  }

  /** run() on a composite key built from several values, in order. */
  runComposite<T>(values: readonly unknown[], body: () => Promise<T>, onFail?: FailureClass): Promise<T | undefined> {
    return runAcquired(this.acquireComposite(values, onFail), body);
  }

  // acquire() and acquireComposite() are not async (one frame less on every call), but both
  // always return a promise: a bad key rejects like every other failure instead of throwing.

  /** Locks `<prefix><businessFlag>_<value>`. */
  acquire(value: unknown, onFail?: FailureClass): Promise<AnyLease | undefined> {
    return this.acquireKeyOf(lockKey, value, onFail);
  }

  /** Locks a composite key built from several values, in order. */
  acquireComposite(values: readonly unknown[], onFail?: FailureClass): Promise<AnyLease | undefined> {
    return this.acquireKeyOf(compositeLockKey, values, onFail);
  }

  /** The key a call with `value` would lock: for logs, tests and tools. */
  keyFor(value: unknown): string {
    return lockKey(this.resolve().prefix, this.spec.businessFlag, value);
  }

  private acquireKeyOf<V>(
    keyOf: (prefix: string, businessFlag: string, value: V) => string,
    value: V,
    onFail: FailureClass | undefined,
  ): Promise<AnyLease | undefined> {
    // Whatever throws on the way — a bad key, options a later configure() made invalid, a store
    // that cannot be used — rejects instead: callers of a Promise-returning method expect that.
    try {
      const options = this.resolve();
      return this.acquireKey(keyOf(options.prefix, this.spec.businessFlag, value), options, onFail);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private acquireKey(key: string, options: LockOptions, onFail: FailureClass | undefined): Promise<AnyLease | undefined> {
    const logger = currentLogger();
    if (options.reentrant) {
      const held = findHeld(key, options.redlock);
      if (held) {
        logger?.({ type: 'reentered', key, site: this.spec.site });
        const outer = held instanceof NestedLease ? held.outer : (held as Lease);
        return Promise.resolve(new NestedLease(outer, held, this.nestedEntry(key, options, onFail)));
      }
    }
    const use: StoreUse = options.redlock ? useRedlockStore(key, this.spec.site) : useCurrentStore();
    const context = { store: use.store, use, logger, site: this.spec.site, onFail: onFail ?? options.onFail };
    return acquireLease(key, options, context);
  }

  /** A nested call that waits for a sibling's turn waits as long as a call waiting on Redis would. */
  private nestedEntry(key: string, options: LockOptions, onFail: FailureClass | undefined): NestedEntry {
    const waitMs = options.retries * options.waitTime;
    return {
      waitMs,
      onTimeout: () => {
        currentLogger()?.({ type: 'failed', key, attempts: 1, waitedMs: waitMs, site: this.spec.site });
        const error = new LockAcquireError(key, 1, waitMs);
        return onFail ? new onFail(error.message) : error;
      },
    };
  }

  private resolve(): LockOptions {
    const version = settingsVersion();
    if (this.resolvedFor !== version) {
      const { site: _site, businessFlag: _flag, ...tagged } = this.spec;
      this.options = mergeOptions(currentDefaults(), tagged);
      this.resolvedFor = version;
    }
    return this.options;
  }
}

/**
 * Runs `body` holding the lease `acquiring` resolves to, and releases it: the try/finally of every
 * locked call. Release never throws, so the body's own outcome reaches the caller unchanged.
 * undefined when there is no lease (onFail=skip). One async function, as a careful hand would
 * write it: a `.then()` chain into a second async function cost each call two more promises
 * (~20% of a call on the in-process store on Node 20, where AsyncLocalStorage makes each dearer).
 */
export async function runAcquired<T>(acquiring: Promise<AnyLease | undefined>, body: (lease: AnyLease) => Promise<T>): Promise<T | undefined> {
  const lease = await acquiring;
  if (!lease) return undefined;
  try {
    return await lease.run(() => body(lease));
  } finally {
    await lease.release();
  }
}

export function defineLock(spec: LockSpec): MethodLock {
  return new MethodLock(spec);
}
