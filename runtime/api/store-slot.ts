// A store's lifetime: how many acquisitions and leases use it, and when it closes.
import type { LockStore } from '../store/lock-store';

/**
 * A store and how many acquisitions and leases use it. One that configure() replaces keeps
 * serving those already under way and closes when the last of them ends.
 */
export class StoreSlot {
  private uses = 0;
  private retired = false;

  constructor(readonly store: LockStore) {}

  use(): StoreUse {
    this.uses++;
    return new StoreUse(this);
  }

  ended(): void {
    if (--this.uses === 0 && this.retired) this.closeInBackground();
  }

  retire(): void {
    this.retired = true;
    if (this.uses === 0) this.closeInBackground();
  }

  /**
   * Nobody awaits this close: a connection that fails to close cleanly (already gone, or closed
   * by its client meanwhile) must not become an unhandled rejection, which ends a Node process.
   */
  private closeInBackground(): void {
    this.store.close().catch(() => undefined);
  }
}

/** One acquisition's use of its store, from its first attempt to the end of its lease's release. */
export class StoreUse {
  private done = false;

  constructor(private readonly slot: StoreSlot) {}

  get store(): LockStore {
    return this.slot.store;
  }

  /** Idempotent: a failed acquisition may end it on two paths. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.slot.ended();
  }
}
