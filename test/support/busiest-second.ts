/**
 * The most instants (ms) that any sliding second holds: any window [t, t + 1000). A pace of N a second is kept when
 * this is at most N, wherever the second starts, not only on whole-second boundaries.
 */
export function busiestSecond(instants: readonly number[]): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
