// Order statistics for the bench. Medians and percentiles, never means: on a shared,
// noisy machine one stalled run would drag a mean far from what a user would see.

/** The p-th percentile (0..100) by the nearest-rank method; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median of the per-repetition ratios a[i] / b[i]: each ratio pairs runs made close in time. */
export function medianRatio(numerators: readonly number[], denominators: readonly number[]): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(numerators.length, denominators.length); i++) {
    if (Number.isFinite(numerators[i]) && denominators[i] > 0) ratios.push(numerators[i] / denominators[i]);
  }
  return median(ratios);
}
