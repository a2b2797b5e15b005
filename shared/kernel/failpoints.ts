/**
 * Named failpoints: `FAILPOINTS=after-status-write` (or `after-publish:3`: the third time that step runs, or several,
 * comma-separated) makes the process die with SIGKILL right after the named step, so every crash point of the
 * durability audit (docs/durability.md) is exercised deterministically, not only by chance.
 *
 * Honoured only where the local runner hosts the functions (`SWITCHBOARD_RUNTIME=local`); the stack never sets
 * FAILPOINTS and a test checks the synthesized template for it. Read from the environment at each call (the runner's
 * threads share it), and cheap when unset: one property read.
 */
export type FailpointName =
  | 'after-status-write'
  | 'after-inbound-write'
  | 'after-send-record'
  | 'after-event-record'
  | 'after-publish'
  | 'after-fanout-batch'
  | 'after-attempt'
  | 'after-attempt-record'
  | 'after-retry-enqueue'
  | 'after-recover-claim'
  | 'after-charge'
  | 'after-refund';

const hits = new Map<string, number>();

/** Dies here (SIGKILL, nothing flushed, nothing cleaned up) when this failpoint is armed. */
export function failpoint(name: FailpointName): void {
  const armed = process.env.FAILPOINTS;
  if (!armed || process.env.SWITCHBOARD_RUNTIME !== 'local') return;
  for (const entry of armed.split(',')) {
    const [point, nth] = entry.trim().split(':');
    if (point !== name) continue;
    const count = (hits.get(name) ?? 0) + 1;
    hits.set(name, count);
    if (count >= Number(nth ?? 1)) {
      process.stderr.write(`failpoint ${name}: killing the process\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  }
}
