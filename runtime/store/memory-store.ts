// An in-process store with the Redis store's semantics — leases that expire, token-checked
// renew and release, and release wake-ups — for the demo when no Redis is at hand and for
// users' own unit tests. It locks within one process only.
import type { LockStore } from './lock-store';
import { type ReleaseFeed, type ReleaseWatch, WatcherRegistry } from './release-feed';

interface Entry {
  token: string;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export class MemoryLockStore implements LockStore {
  private readonly entries = new Map<string, Entry>();
  private readonly registry = new WatcherRegistry();
  readonly releases: ReleaseFeed = {
    watch: async (key: string, leaseMs: number): Promise<ReleaseWatch> => this.registry.add(key, leaseMs),
    reserveSuccessor: (key: string) => this.registry.reserveSuccessor(key),
    isWatched: (key: string) => this.registry.has(key),
  };

  async tryAcquire(key: string, token: string, leaseMs: number): Promise<boolean> {
    if (this.entries.has(key)) return false;
    this.entries.set(key, { token, expiresAt: Date.now() + leaseMs, timer: this.expireAfter(key, token, leaseMs) });
    return true;
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token) return false;
    clearTimeout(entry.timer);
    entry.expiresAt = Date.now() + leaseMs;
    entry.timer = this.expireAfter(key, token, leaseMs);
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token) return false;
    this.delete(key, entry);
    return true;
  }

  async handover(key: string, token: string, nextToken: string, leaseMs: number): Promise<boolean> {
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token) return false;
    clearTimeout(entry.timer);
    this.entries.set(key, { token: nextToken, expiresAt: Date.now() + leaseMs, timer: this.expireAfter(key, nextToken, leaseMs) });
    return true;
  }

  /** The token holding `key`, or undefined: for tests that check what is held. */
  async isHeld(key: string): Promise<boolean> {
    return this.holder(key) !== undefined;
  }

  holder(key: string): string | undefined {
    return this.entries.get(key)?.token;
  }

  /** Remaining lease of `key` in ms, or -2 when absent (like Redis PTTL). */
  pttl(key: string): number {
    const entry = this.entries.get(key);
    return entry ? Math.max(0, entry.expiresAt - Date.now()) : -2;
  }

  async close(): Promise<void> {
    for (const [key, entry] of this.entries) this.delete(key, entry);
  }

  private expireAfter(key: string, token: string, leaseMs: number): NodeJS.Timeout {
    // Unref'd like Redis's own expiry: a lease alone never keeps the process running.
    // Unlike Redis (which does not publish expiries), expiry here wakes waiters too.
    const timer = setTimeout(() => {
      const entry = this.entries.get(key);
      if (entry && entry.token === token) this.delete(key, entry);
    }, leaseMs);
    timer.unref();
    return timer;
  }

  private delete(key: string, entry: Entry): void {
    clearTimeout(entry.timer);
    this.entries.delete(key);
    this.registry.released(key);
  }
}
