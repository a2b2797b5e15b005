/**
 * What one of the local runner's written-work signals (local/work-signal.ts: due entries, outbox marks, charges)
 * says about a write. The channel is the process's: a write of an earlier test file in the same process can be heard
 * late, so only signals sent after a write began count as its own, and they alone end the wait.
 */
export function writtenSignals(on: (listener: (at: number) => void) => { close(): void }) {
  const heard: number[] = [];
  const listening = on((at) => heard.push(at));
  return {
    /**
     * Runs `write`, then waits for its signal: up to 10 s when one is expected (BroadcastChannel messages come late
     * on a loaded machine), 500 ms when none is, and 200 ms more for signals that must not come. Their times.
     */
    async of(write: () => Promise<unknown>, expectOne: boolean): Promise<number[]> {
      const from = Date.now();
      const mine = () => heard.filter((at) => at >= from);
      await write();
      const until = performance.now() + (expectOne ? 10_000 : 500);
      while (mine().length === 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      return mine();
    },
    close: () => listening.close(),
  };
}
