// What every contender offers the scenarios: one critical section under one key.
import type { Redis } from 'ioredis';

export interface Contender {
  /** Short name used in tables, keys and the chart. */
  readonly name: string;
  /** The settings it runs with, stated in results.md: the numbers depend on them. */
  readonly settings: string;
  /** Gets the ioredis client that its locks (and the scenario's body) use. */
  setup(client: Redis): Promise<void>;
  /** Runs `body` while holding the lock on `key`; rejects if the lock cannot be had. */
  lock<T>(key: string, body: () => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

/** Lease used by every contender: far longer than any critical section here, so none expires mid-run. */
export const LEASE_MS = 30_000;

/** Every contender gives up after this long, so a broken lock ends a run instead of hanging it. */
export const GIVE_UP_MS = 20_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
