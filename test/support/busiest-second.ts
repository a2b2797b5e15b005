/**
 * The most instants (ms) that any sliding second holds: any window [t, t + 1000). A pace of N a second is kept when
 * this is at most N, wherever the second starts, not only on whole-second boundaries.
 */
export function busiestSecond(instants: readonly number[]): number {
  return busiestWindow(instants).count;
}

/** The busiest sliding second of `instants` (ms): how many it holds, and the instant it begins at (the first one's). */
export function busiestWindow(instants: readonly number[]): { count: number; from: number } {
  const sorted = [...instants].sort((a, b) => a - b);
  let best = { count: 0, from: sorted[0] ?? 0 };
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    if (i - j + 1 > best.count) best = { count: i - j + 1, from: sorted[j]! };
  }
  return best;
}
