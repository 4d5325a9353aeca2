// The entry point of woven code. A woven module calls defineLock() once per tagged method,
// at module load, with the options the tag spelled out; each call of the method then does
// `await spec.acquire(key)`. Options are resolved once and cached until the next configure().
import { LockAcquireError } from './errors';
import { currentDefaults, currentLogger, currentStore, settingsVersion } from './configure';
import { mergeOptions, type LockOptions } from './options';
import { acquireLease, type AcquireSettings } from '../lock/acquire';
import { findHeld } from '../lock/held-locks';
import { compositeLockKey, lockKey } from '../lock/key';
import { NestedLease, type AnyLease, type Lease } from '../lock/lease';

/** What the transformer writes into defineLock(): the tag's attributes, with times in ms. */
export interface LockSpec extends Partial<LockOptions> {
  /** Where the tag stands, for log lines and errors: `OrderService.pay`. */
  readonly site?: string;
  readonly businessFlag: string;
}

/** A class named by `onFail=ClassName`: constructed with the failure message. */
export type FailureClass = new (message: string) => unknown;

export class MethodLock {
  private resolvedFor = -1;
  private options!: LockOptions;

  constructor(readonly spec: LockSpec) {
    if (typeof spec?.businessFlag !== 'string' || spec.businessFlag === '') {
      throw new TypeError('lockweave: defineLock() needs a businessFlag');
    }
    this.resolve(); // fail at module load, not at the first call, if the spec is invalid
  }

  // Both are async so that a bad key rejects like every other failure instead of throwing.

  /** Locks `<prefix><businessFlag>_<value>`. */
  async acquire(value: unknown, onFail?: FailureClass): Promise<AnyLease | undefined> {
    const options = this.resolve();
    return this.acquireKey(lockKey(options.prefix, this.spec.businessFlag, value), options, onFail);
  }

  /** Locks a composite key built from several values, in order. */
  async acquireComposite(values: readonly unknown[], onFail?: FailureClass): Promise<AnyLease | undefined> {
    const options = this.resolve();
    return this.acquireKey(compositeLockKey(options.prefix, this.spec.businessFlag, values), options, onFail);
  }

  /** The key a call with `value` would lock: for logs, tests and tools. */
  keyFor(value: unknown): string {
    return lockKey(this.resolve().prefix, this.spec.businessFlag, value);
  }

  private async acquireKey(key: string, options: LockOptions, onFail: FailureClass | undefined): Promise<AnyLease | undefined> {
    const logger = currentLogger();
    if (options.reentrant) {
      const held = findHeld(key);
      if (held) {
        logger?.({ type: 'reentered', key, site: this.spec.site });
        return new NestedLease(held as Lease);
      }
    }
    try {
      return await acquireLease(key, options as AcquireSettings, { store: currentStore(), logger, site: this.spec.site });
    } catch (error) {
      if (!(error instanceof LockAcquireError)) throw error;
      if (onFail) throw new onFail(error.message);
      if (options.onFail === 'skip') return undefined;
      throw error;
    }
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

export function defineLock(spec: LockSpec): MethodLock {
  return new MethodLock(spec);
}
