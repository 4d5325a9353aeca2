// The messages between the bench's parent process and its children.
//
// Why a fresh child per measured run: on Node 20, AsyncLocalStorage (which lockweave uses for
// reentrancy) installs process-wide promise hooks once first used, slowing every promise in
// the process — the floor's and the peers' too. A child per run keeps each contender's costs
// its own, and gives every run the same cold start followed by the same warm-up.
import type { RunResult } from '../scenarios/run-result';
import type { OverheadResult } from '../weave/run-overhead';

export type ScenarioKind = 'uncontended' | 'hot-key' | 'succession' | 'hot-key-process';

export interface ScenarioJob {
  readonly kind: ScenarioKind;
  readonly contender: string;
  readonly redisUrl: string;
  /** Unique per run, so every run starts on fresh keys and a zero counter. */
  readonly keyPrefix: string;
  readonly callers: number;
  readonly iterations: number;
  /** How long the child warms up before the measured run (see bench/config.ts). */
  readonly warmupMs: number;
  readonly deadlineMs: number;
  /** The redis-server every contender of the run locks on, whose CPU the run reads (not a topology's). */
  readonly redisPid?: number;
}

export interface OverheadJob {
  readonly kind: 'weave-overhead';
  readonly batches: number;
  readonly callsPerBatch: number;
}

export interface DescribeJob {
  readonly kind: 'describe';
}

export type Job = ScenarioJob | OverheadJob | DescribeJob;

export interface ContenderDescription {
  readonly id: string;
  readonly name: string;
  readonly settings: string;
}

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'result'; result: RunResult }
  | { type: 'overhead'; result: OverheadResult }
  | { type: 'described'; contenders: ContenderDescription[] }
  | { type: 'error'; message: string };

export type ParentMessage = { type: 'run'; job: Job } | { type: 'go' };
