// Each case appends one JSON line; scripts/test-faults.sh aggregates them into the table it
// prints at the end. Appending (not rewriting) lets ava's parallel test files share the file.
import { appendFileSync, mkdirSync } from 'node:fs';
import { SUMMARY_FILE, TMP_DIR } from './paths';

export interface CaseSummary {
  /** The test title: the promise the case checks. */
  readonly case: string;
  /** Faults injected: kills, pauses, restarts, connection cuts, malformed inputs. */
  readonly faults: number;
  /** Locked operations (or compilations) run. */
  readonly operations: number;
  /**
   * Counted from what the case's bodies recorded; left out by a case that does not count them,
   * so the table shows "-" there rather than a 0 that nothing checked.
   */
  readonly lostUpdates?: number;
  readonly overlaps?: number;
  readonly durationMs: number;
  /** Anything else worth a glance: error counts, latencies. */
  readonly notes?: string;
}

export function recordSummary(summary: CaseSummary): void {
  mkdirSync(TMP_DIR, { recursive: true });
  appendFileSync(SUMMARY_FILE, `${JSON.stringify({ ...summary, at: new Date().toISOString() })}\n`);
}
