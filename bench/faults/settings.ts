// What the fault bench's parent (bench/faults.ts) and its processes (worker.ts) agree on.

export interface FaultWorkerConfig {
  readonly contender: 'lockweave' | 'poller';
  /** Through the fault proxy. */
  readonly lockUrl: string;
  /** Straight to Redis. */
  readonly dataUrl: string;
  readonly keys: readonly string[];
  readonly callers: number;
  readonly runMs: number;
}

export interface FaultWorkerResult {
  readonly sections: number;
  readonly waitsMs: number[];
  readonly failed: number;
  readonly overlaps: number;
  readonly increments: Record<string, number>;
  readonly firstError?: string;
}

/** The plain lock's lease (lockweave's tag says the same: lockTime=5s) and its poll. */
export const LEASE_MS = 5_000;
export const POLL_MS = 10;
