import type { ScheduledWorkerDefinition } from '#shared/contract/workers.ts';
import { invokeWithTimeout, lambdaContext } from './lambda-context.ts';

export type ScheduledHandler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/**
 * The longest a scheduled worker waits between runs locally while its runs find nothing to do. An idle local service
 * otherwise runs its sweepers every 2-5 s for as long as it lives (the due sweep alone Queries each of its partitions
 * for every minute it looks at), which was most of an idle test service's CPU.
 */
export const IDLE_MAX_SECONDS = 30;
/**
 * The same for a worker that is also woken once its signalled work has settled (`settleMs`): every write that gives
 * it work is signalled, so its idle runs are only a safety net, and the event sweep's idle run (a Query of each of its
 * 65 shards) was the costliest left in an idle service.
 */
export const SETTLED_IDLE_MAX_SECONDS = 300;

export interface ScheduleOptions {
  /**
   * Subscribes to the runner's "work came in" signal (./work-signal.ts), which gives the time it was sent: a waiting
   * worker is back to its pace.
   */
  onWork?: (listener: (sentAt: number) => void) => { close(): void };
  /**
   * For a worker whose work is left alone until it is this old (the event and credit sweeps' bounds): besides its pace, a run
   * once a signal's time is `settleMs` past, and once the schedule's start is (work left by the previous process).
   */
  settleMs?: number;
}

/**
 * Calls a scheduled worker every `everySecondsLocally` (EventBridge locally), never two runs of it at once. A run
 * that found nothing to do (its result's counts all 0: `{ enqueued: 0 }`) doubles the wait before the next, up to
 * {@link IDLE_MAX_SECONDS} ({@link SETTLED_IDLE_MAX_SECONDS} with `settleMs`); a run that did something, failed or said nothing countable brings it back to
 * `everySecondsLocally`, and so does work coming in (`onWork`): the next run is then at most that far away. What a
 * sweeper is for (a send scheduled minutes ahead, what a crash left behind, which a restart sweeps from the start)
 * waits no longer than it did while anything happens on the service.
 */
export function startSchedule(
  worker: ScheduledWorkerDefinition,
  handler: ScheduledHandler,
  onError: (e: unknown) => void,
  options: ScheduleOptions = {},
) {
  const everyMs = worker.everySecondsLocally * 1000;
  const idleMaxSeconds = options.settleMs === undefined ? IDLE_MAX_SECONDS : SETTLED_IDLE_MAX_SECONDS;
  const idleMaxMs = Math.max(everyMs, idleMaxSeconds * 1000);
  let idleRuns = 0;
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let nextAt = 0;
  // Runs owed to signalled work once it has settled (epoch ms, soonest first, on the pace's grid: one a pace at most).
  let settled: number[] = [];
  const schedule = (at: number) => {
    clearTimeout(timer);
    nextAt = at;
    timer = setTimeout(tick, Math.max(0, at - Date.now()));
    timer.unref();
  };
  const tick = () => {
    if (running || stopped) return;
    const startedAt = Date.now();
    const event = {
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      time: new Date(startedAt).toISOString(),
      detail: {},
    };
    running = invokeWithTimeout(
      () => handler(event, lambdaContext(worker.fn, worker.timeoutSeconds, worker.memoryMb)),
      worker.timeoutSeconds,
      { functionName: worker.fn, event },
    )
      .then(
        (result) => {
          idleRuns = foundNothing(result) ? idleRuns + 1 : 0;
        },
        (error: unknown) => {
          idleRuns = 0;
          onError(error);
        },
      )
      .finally(() => {
        running = undefined;
        // As EventBridge's rate: counted from the run's start, not its end. A run owed to settled work that started
        // before this run did is paid by it.
        settled = settled.filter((at) => at > startedAt);
        const paced = startedAt + Math.min(everyMs * 2 ** idleRuns, idleMaxMs);
        if (!stopped) schedule(Math.min(paced, settled[0] ?? paced));
      });
  };
  const owe = (sentAt: number) => {
    if (options.settleMs === undefined) return;
    // The run must start after the work is `settleMs` old: the next multiple of the pace (or of the bound, if
    // shorter) past it. So a busy stretch's signals, one a second, are owed one run a pace, not one a second: those
    // were 5 times the event sweeper's runs (64 Queries each) for as long as marks were written, while a mark waits
    // at most a pace past its bound, as the pace alone lets it.
    const grid = Math.min(everyMs, options.settleMs);
    const at = Math.ceil((sentAt + options.settleMs + 1) / grid) * grid;
    // Signals come in time order, many to the second: most of them are the last entry, or the next.
    const last = settled.at(-1);
    if (last === undefined || at > last) settled.push(at);
    else if (!settled.includes(at)) settled = [...settled, at].sort((a, b) => a - b);
  };
  owe(Date.now());
  schedule(Math.min(Date.now() + everyMs, settled[0] ?? Number.POSITIVE_INFINITY));
  const work = options.onWork?.((sentAt) => {
    idleRuns = 0;
    owe(sentAt);
    if (running || stopped) return;
    const at = Math.min(Date.now() + everyMs, settled[0] ?? Number.POSITIVE_INFINITY);
    if (nextAt > at) schedule(at);
  });
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      work?.close();
      await running;
    },
  };
}

/** A run's result that counts what it did and counts nothing: `{ enqueued: 0 }`, `{ published: 0 }`. */
export function foundNothing(result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const counts = Object.values(result);
  return counts.length > 0 && counts.every((count) => count === 0);
}
