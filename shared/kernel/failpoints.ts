import { readFileSync } from 'node:fs';

/**
 * Named failpoints: `FAILPOINTS=after-status-write` (or `after-publish:3`: the third time that step runs, or several,
 * comma-separated) makes the process die with SIGKILL right after the named step, so every crash point of the
 * durability audit (docs/durability.md) is exercised deterministically, not only by chance.
 * `FAILPOINTS_FILE=<path>` names a file holding the same list instead, read at each call: a running service is
 * armed by writing the file (the crash-point tests arm the service they restarted for the next crash point instead
 * of starting another), and counting starts again whenever the list changes.
 *
 * Honoured only where the local runner hosts the functions (`SWITCHBOARD_RUNTIME=local`); the stack never sets
 * either and a test checks the synthesized template for it. Read from the environment at each call (the runner's
 * threads share it), and cheap when unset: two property reads.
 */
export type FailpointName =
  | 'after-status-write'
  | 'after-inbound-write'
  | 'after-send-record'
  | 'after-event-record'
  | 'after-publish'
  | 'after-fanout-batch'
  | 'after-notice-email-queued'
  | 'after-attempt'
  | 'after-attempt-record'
  | 'after-retry-enqueue'
  | 'after-recover-claim'
  | 'after-charge'
  | 'after-refund';

const hits = new Map<string, number>();
/** The list the hits were counted under. */
let countedFor = '';

/** Dies here (SIGKILL, nothing flushed, nothing cleaned up) when this failpoint is armed. */
export function failpoint(name: FailpointName): void {
  const file = process.env.FAILPOINTS_FILE;
  const armed = file ? armedIn(file) : process.env.FAILPOINTS;
  if (!armed || process.env.SWITCHBOARD_RUNTIME !== 'local') {
    countedFor = '';
    return;
  }
  if (armed !== countedFor) {
    hits.clear();
    countedFor = armed;
  }
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

/** The list in `file`; none while it is missing. */
function armedIn(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
