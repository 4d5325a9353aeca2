// The entry point of woven code. A woven module calls defineLock() once per tagged method,
// at module load, with the options the tag spelled out; each call of the method then acquires,
// runs its body holding the lease, and releases (transformer/weave/method-body.ts):
//
//   const lease_1 = await pay_lock_1.acquire(orderNo);
//   try { return await lease_1.run(async () => { <the original body> }); }
//   finally { await lease_1.release(); }
//
// The settings in force (those options over the current defaults) are resolved once and cached
// until the next configure().
import {
  currentDefaults,
  currentLogger,
  settingsVersion,
  useCurrentStore,
  useRedlockStore,
  type StoreUse,
} from './configure';
import { mergeOptions, type LockOptions } from '../base/options';
import { OPTION_NAMES } from '../base/option-table';
import { checkKeys } from '../base/redis-options';
import { holdProcess } from '../base/process-hold';
import { noteDefiningModule } from '../base/weave-mark';
import { acquireLease, type FailureClass } from '../lock/acquire';
import { findHeld } from '../lock/held-locks';
import { acquireChannel, observedLogger, type AcquireTrace, type LockLabel } from '../lock/observe';
import { compositeLockKey, keylessLockKey, lockKey, mapEach } from '../lock/key';
import { NestedLease, type AnyLease, type Lease, type NestedEntry } from '../lock/lease';
import { FencingUnavailableError, LockAcquireError, LockKeyError } from '../base/errors';
import { MultiLease } from '../lock/multi-lease';
import { businessFlagProblem } from '../base/key-names';
import type { LockState } from './inspect';

/** What the transformer writes into defineLock(): the tag's attributes, with times in ms. */
export interface DefineLockOptions extends Partial<LockOptions> {
  /** Where the tag stands, for log lines and errors: `OrderService.pay`. */
  readonly site?: string;
  readonly businessFlag: string;
}

/** @deprecated use DefineLockOptions */
export type LockSpec = DefineLockOptions;

export type { FailureClass };

/**
 * What acquire() resolves besides a lease: `undefined` when the options may skip (onFail: 'skip',
 * or an onFail not known when this is compiled), nothing when they say 'throw' or leave onFail
 * out (defaults cannot set it: configure-checks.ts). Woven text that a tool type-checks (ts-loader,
 * a vitest typecheck) then reads `lease_1.run(…)` on a lease that is there, as the user's own
 * code would, and a skipping tag's `if (!lease_1) return undefined;` on one that may not be.
 */
export type SkippedBy<O extends DefineLockOptions> = O extends { onFail: infer F }
  ? 'skip' extends F
    ? undefined
    : never
  : 'onFail' extends keyof O
    ? undefined
    : never;

export class MethodLock<Skipped extends undefined = undefined> {
  private resolvedFor = -1;
  /** The settings in force: the options over the current defaults, checked; resolved again after a configure(). */
  private settings!: LockOptions;
  /** Which lock this is, in its events and traces (lock/observe.ts). */
  private readonly label: LockLabel;

  constructor(readonly options: DefineLockOptions) {
    // The tag's own rule (base/key-names.ts): a flag the tag would refuse could make a key that
    // reads as another (flag, value) pair, or carry a brace into the key.
    const badFlag = businessFlagProblem(options?.businessFlag);
    if (badFlag) throw new TypeError(`lockweave: ${badFlag}${options?.site ? ` (${options.site})` : ''}`);
    this.label = Object.freeze({ businessFlag: options.businessFlag, site: options.site });
    this.resolve(); // fail at module load, not at the first call, if the options are invalid
  }

  /** @deprecated use options */
  get spec(): DefineLockOptions {
    return this.options;
  }

  /**
   * Takes the lock on `value`, runs `body` holding it, releases it when the promise `body` returned
   * settles, and passes on its result or error unchanged. With onFail=skip and the lock busy,
   * resolves `undefined` without running `body`.
   * @deprecated what code woven by earlier versions calls; woven code now calls acquire(), lease.run() and
   * lease.release() itself, and programs call withLock().
   */
  run<T>(value: unknown, body: () => Promise<T>, onFail?: FailureClass): Promise<T | undefined> {
    return runAcquired(this.acquire(value, onFail), body);
  }

  /**
   * run() on a composite key built from several values, in order.
   * @deprecated as run().
   */
  runComposite<T>(values: readonly unknown[], body: () => Promise<T>, onFail?: FailureClass): Promise<T | undefined> {
    return runAcquired(this.acquireComposite(values, onFail), body);
  }

  // acquire() and acquireComposite() are not async (one frame less on every call), but both
  // always return a promise: a bad key rejects like every other failure instead of throwing.

  /**
   * Locks `<prefix><businessFlag>_<value>` and resolves the lease; `undefined` only when the options
   * skip (onFail: 'skip') and the lock is busy. Any other failure rejects: LockAcquireError, or an
   * instance of `onFail` when given. An abort of `signal` while the call waits rejects with its reason.
   */
  acquire(value: unknown, onFail?: FailureClass, signal?: AbortSignal): Promise<AnyLease | Skipped> {
    return this.acquireKeyOf(lockKey, value, onFail, signal) as Promise<AnyLease | Skipped>;
  }

  /** Locks a composite key built from several values, in order; resolves as acquire(). */
  acquireComposite(
    values: readonly unknown[],
    onFail?: FailureClass,
    signal?: AbortSignal,
  ): Promise<AnyLease | Skipped> {
    return this.acquireKeyOf(compositeLockKey, values, onFail, signal) as Promise<AnyLease | Skipped>;
  }

  /**
   * Locks `<prefix><businessFlag>`, the one lock of the business (a tag without keyName: a
   * scheduled job's); resolves as acquire(). A key value that is undefined never comes here: that
   * is acquire()'s LockKeyError, so a keyed lock is never taken as the business's by mistake.
   */
  acquireKeyless(onFail?: FailureClass, signal?: AbortSignal): Promise<AnyLease | Skipped> {
    return this.acquireKeyOf(
      (prefix, businessFlag) => keylessLockKey(prefix, businessFlag),
      undefined,
      onFail,
      signal,
    ) as Promise<AnyLease | Skipped>;
  }

  /**
   * Locks each of `values` as a key of its own (a tag's keyNames): all or nothing, one after another
   * in the keys' sorted order, so that callers whose sets overlap never deadlock (lock/multi-lease.ts).
   * A value named twice is one lock. Resolves a MultiLease; when a key cannot be taken, the keys taken
   * before it are released and the call fails (or skips) as acquire() does. Each key waits its own
   * wait bound in turn.
   */
  acquireEach(values: readonly unknown[], onFail?: FailureClass, signal?: AbortSignal): Promise<MultiLease | Skipped> {
    try {
      checkSignal(signal);
      const settings = this.callSettings();
      const { businessFlag } = this.options;
      if (!Array.isArray(values) || values.length === 0) {
        const what = Array.isArray(values) ? 'an empty list' : 'not a list';
        throw new LockKeyError(
          `the keys for ${settings.prefix}${businessFlag}_… are ${what}; no lock was taken`,
          `${settings.prefix}${businessFlag}_`,
        );
      }
      const keys = [...new Set(mapEach(values, (value) => lockKey(settings.prefix, businessFlag, value)))].sort();
      return this.acquireKeys(keys, settings, onFail, signal) as Promise<MultiLease | Skipped>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async acquireKeys(
    keys: readonly string[],
    settings: LockOptions,
    onFail: FailureClass | undefined,
    signal: AbortSignal | undefined,
  ): Promise<MultiLease | undefined> {
    const taken: AnyLease[] = [];
    try {
      for (const key of keys) {
        const lease = await this.acquireKey(key, settings, onFail, signal);
        if (!lease) break; // onFail=skip: the keys taken are given back below
        taken.push(lease);
      }
    } finally {
      if (taken.length < keys.length) await Promise.all(taken.reverse().map((lease) => lease.release()));
    }
    return taken.length === keys.length ? new MultiLease(taken) : undefined;
  }

  /** The key a call with `value` would lock: for logs, tests and tools. */
  keyFor(value: unknown): string {
    return lockKey(this.resolve().prefix, this.options.businessFlag, value);
  }

  /**
   * What the lock on the key `keyOf` names looks like now (api/inspect.ts), read on the store the
   * lock would take it on: the current one, or the Redlock servers for a lock with `redlock`.
   */
  async inspect(keyOf: (prefix: string, businessFlag: string) => string): Promise<LockState> {
    const settings = this.callSettings();
    const key = keyOf(settings.prefix, this.options.businessFlag);
    const use = settings.redlock ? useRedlockStore(key, this.options.site) : useCurrentStore();
    // Its caller awaits the answer as a locked call awaits its key: the process stays up until it
    // settles (base/process-hold.ts), within the store's bound on a command.
    const letGo = holdProcess();
    try {
      if (!use.store.inspect) throw new TypeError(`lockweave: the configured store cannot inspect ${key}`);
      return { key, ...(await use.store.inspect(key)) };
    } finally {
      letGo();
      use.end();
    }
  }

  private acquireKeyOf<V>(
    keyOf: (prefix: string, businessFlag: string, value: V) => string,
    value: V,
    onFail: FailureClass | undefined,
    signal: AbortSignal | undefined,
  ): Promise<AnyLease | undefined> {
    // Whatever throws on the way — a bad key, settings a later configure() made invalid, a store
    // that cannot be used — rejects instead: callers of a Promise-returning method expect that.
    try {
      checkSignal(signal);
      const settings = this.callSettings();
      return this.acquireKey(keyOf(settings.prefix, this.options.businessFlag, value), settings, onFail, signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private acquireKey(
    key: string,
    settings: LockOptions,
    onFail: FailureClass | undefined,
    signal: AbortSignal | undefined,
  ): Promise<AnyLease | undefined> {
    const logger = currentLogger();
    const { label } = this;
    if (settings.reentrant) {
      const held = findHeld(key, settings.redlock);
      if (held) {
        const outer = held instanceof NestedLease ? held.outer : (held as Lease);
        const refused = this.nestedRefusal(key, settings, outer);
        if (refused) return Promise.reject(refused);
        observedLogger(logger, label)?.({ type: 'reentered', key, site: this.options.site });
        return NestedLease.enter(outer, held, this.nestedEntry(key, settings, onFail, signal));
      }
    }
    const use: StoreUse = settings.redlock ? useRedlockStore(key, this.options.site) : useCurrentStore();
    const trace: AcquireTrace | undefined = acquireChannel.hasSubscribers ? { ...label, key, signal } : undefined;
    const context = {
      store: use.store,
      use,
      logger: observedLogger(logger, label, trace),
      site: this.options.site,
      onFail: onFail ?? settings.onFail,
      signal,
      label,
    };
    return trace
      ? (acquireChannel.tracePromise(() => acquireLease(key, settings, context), trace) as Promise<
          AnyLease | undefined
        >)
      : acquireLease(key, settings, context);
  }

  /**
   * Why a nested call cannot run under `outer`'s grant, if it asks for more than that grant gives: a
   * nested call gets the outer grant and its release, so what it asks of its own grant would not hold.
   * Refused rather than run without it:
   *   - fencing: a grant taken without a number has none to give, and a fenced write must not go
   *     ahead without it;
   *   - replicas: the outer grant was acknowledged by fewer replicas (a failover could hand the key
   *     to a second caller while this body runs), as at top level the call would fail;
   *   - autoUnlock=false or minHold: the outer release would delete the key sooner than this call
   *     asked it kept (another instance's timer would find it free and run the job again).
   */
  private nestedRefusal(key: string, settings: LockOptions, outer: Lease): Error | undefined {
    const terms = outer.grantTerms;
    const who = this.options.site ?? key;
    const why = `(a nested call runs under the outer grant and its release)`;
    if (settings.fencing && !terms.fenced)
      return new FencingUnavailableError(
        `lockweave: ${who} asks for fencing, but is nested in a hold of ${key} taken without it ${why}; take the outer lock with fencing too`,
        key,
      );
    if (settings.replicas > terms.replicas)
      return new LockAcquireError(key, 1, 0, {
        cause: new Error(
          `${who} asks for replicas=${settings.replicas}, but is nested in a hold of ${key} that ${terms.replicas} replica(s) acknowledged ${why}; take the outer lock with replicas=${settings.replicas} too`,
        ),
      });
    const keptFor = settings.autoUnlock ? settings.minHold : Number.POSITIVE_INFINITY;
    if (keptFor > terms.keptFor)
      return new LockAcquireError(key, 1, 0, {
        cause: new Error(
          `${who} asks for the key kept after its body (${settings.autoUnlock ? `minHold=${settings.minHold}ms` : 'autoUnlock=false'}), but is nested in a hold of ${key} whose release keeps it ${terms.keptFor > 0 ? `only ${terms.keptFor} ms from its start` : 'no longer'} ${why}; take the outer lock with the same autoUnlock and minHold`,
        ),
      });
    return undefined;
  }

  /** A nested call that waits for a sibling's turn waits as long as a call waiting on Redis would. */
  private nestedEntry(
    key: string,
    settings: LockOptions,
    onFail: FailureClass | undefined,
    signal: AbortSignal | undefined,
  ): NestedEntry {
    const waitMs = settings.retries * settings.waitTime;
    return {
      waitMs,
      signal,
      watchdog: settings.watchdog,
      onTimeout: () => {
        observedLogger(
          currentLogger(),
          this.label,
        )?.({
          type: 'failed',
          key,
          attempts: 1,
          waitedMs: waitMs,
          site: this.options.site,
        });
        const error = new LockAcquireError(key, 1, waitMs);
        return onFail ? new onFail(error.message) : error;
      },
    };
  }

  /**
   * The settings a call locks with. A programmatic call for a business that a tagged method locks
   * under another prefix — the plugin entry's `prefix`, or the tag's — would lock another key than
   * the method's, and the two would not exclude each other: refused (see checkSamePrefix).
   */
  private callSettings(): LockOptions {
    const settings = this.resolve();
    const woven = wovenPrefixes.get(this.options.businessFlag);
    if (woven && !wovenLocks.has(this)) checkSamePrefix(this.options.businessFlag, settings.prefix, woven);
    return settings;
  }

  private resolve(): LockOptions {
    const version = settingsVersion();
    if (this.resolvedFor !== version) {
      const { site: _site, businessFlag: _flag, ...tagged } = this.options;
      this.settings = mergeOptions(currentDefaults(), tagged);
      this.resolvedFor = version;
    }
    return this.settings;
  }
}

/**
 * Runs `body` holding the lease `acquiring` resolves to, and releases it: the try/finally of
 * withLock() (woven methods write theirs out). Release never throws, so the body's own outcome reaches the caller unchanged.
 * undefined when there is no lease (onFail=skip). One async function, as a careful hand would
 * write it: a `.then()` chain into a second async function cost each call two more promises
 * (~20% of a call on the in-process store on Node 20, where AsyncLocalStorage makes each dearer).
 */
export async function runAcquired<T, L extends AnyLease | MultiLease>(
  acquiring: Promise<L | undefined>,
  body: (lease: L) => Promise<T>,
): Promise<T | undefined> {
  const lease = await acquiring;
  if (!lease) return undefined;
  try {
    return await lease.run(() => body(lease));
  } finally {
    await lease.release();
  }
}

/**
 * A signal is an AbortSignal or absent. Anything else — a tag's path that reached another value
 * on a route without types — is refused: a wait the caller believes cancellable must be.
 */
function checkSignal(signal: unknown): void {
  if (signal === undefined) return;
  const candidate = signal as Partial<AbortSignal> | null;
  if (
    typeof candidate?.aborted !== 'boolean' ||
    typeof candidate.addEventListener !== 'function' ||
    typeof candidate.removeEventListener !== 'function'
  )
    throw new TypeError(
      `lockweave: signal must be an AbortSignal or undefined, got ${signal === null ? 'null' : typeof signal}`,
    );
}

/** What defineLock() reads. Woven code writes only these; a hand-written misspelling (redLock, prefx) would lock elsewhere. */
const DEFINE_LOCK_KEYS: readonly string[] = ['site', 'businessFlag', ...OPTION_NAMES];

/**
 * The prefixes the tagged methods of each business were woven with, as defineLock() got them:
 * the plugin entry's or the tag's, or undefined for one that takes configure()'s. Each with the
 * first method that named it, for the error. Bounded by the tagged methods a program has.
 */
const wovenPrefixes = new Map<string, Map<string | undefined, string>>();

/** The locks defineLock() made: a tagged method's own calls are not programmatic ones. */
const wovenLocks = new WeakSet<MethodLock<undefined>>();

function noteWoven(lock: MethodLock<undefined>): void {
  wovenLocks.add(lock);
  const { businessFlag, prefix, site } = lock.options;
  let prefixes = wovenPrefixes.get(businessFlag);
  if (!prefixes) wovenPrefixes.set(businessFlag, (prefixes = new Map()));
  if (!prefixes.has(prefix)) prefixes.set(prefix, site ?? 'a tagged method');
}

/**
 * A programmatic call uses the same locks and keys as a tagged method of its business: refused
 * with a TypeError when the tagged methods of `businessFlag` loaded so far lock under other
 * prefixes than `prefix` — a plugin entry's `"prefix": "shop:"` reaches only the methods it wove,
 * and withLock() would lock `LOCK_payOrder_O1` beside a method holding `shop:payOrder_O1`.
 */
function checkSamePrefix(businessFlag: string, prefix: string, woven: ReadonlyMap<string | undefined, string>): void {
  const configured = currentDefaults().prefix;
  let other: [string, string] | undefined;
  for (const [own, site] of woven) {
    const wovenWith = own ?? configured;
    if (wovenWith === prefix) return;
    other ??= [wovenWith, site];
  }
  if (!other) return;
  const [wovenWith, site] = other;
  throw new TypeError(
    `lockweave: this call locks ${businessFlag} under the prefix ${JSON.stringify(prefix)}, but the tagged method ` +
      `${site} locks it under ${JSON.stringify(wovenWith)} (the prefix of its plugin entry or tag): the two would ` +
      `take different keys and not exclude each other. Call configure({ prefix: ${JSON.stringify(wovenWith)} }) to ` +
      `match the plugin entry, or pass prefix: ${JSON.stringify(wovenWith)} in this request`,
  );
}

/** One lock definition per tagged method, made at module load; see SkippedBy for its type. */
export function defineLock<const O extends DefineLockOptions>(options: O): MethodLock<SkippedBy<O>> {
  if (typeof options === 'object' && options !== null)
    checkKeys(options, DEFINE_LOCK_KEYS, `lockweave: defineLock(${options.site ?? ''})`, 'a lock option');
  const named = options as { site?: unknown; businessFlag?: unknown } | null;
  noteDefiningModule(defineLock, named?.site, named?.businessFlag);
  const lock = new MethodLock<SkippedBy<O>>(options);
  noteWoven(lock as MethodLock<undefined>);
  return lock;
}
