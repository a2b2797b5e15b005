import type { ScheduledWorkerDefinition } from '#shared/contract/workers.ts';
import { invokeWithTimeout, lambdaContext } from './lambda-context.ts';

export type ScheduledHandler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/**
 * The longest a scheduled worker waits between runs locally while its runs find nothing to do. An idle local service
 * otherwise runs its sweepers every 2-5 s for as long as it lives (the due sweep alone Queries each of its partitions
 * for every minute it looks at), which was most of an idle test service's CPU.
 */
export const IDLE_MAX_SECONDS = 30;

export interface ScheduleOptions {
  /** Subscribes to the runner's "work came in" signal (./work-signal.ts): a waiting worker is back to its pace. */
  onWork?: (listener: () => void) => { close(): void };
}

/**
 * Calls a scheduled worker every `everySecondsLocally` (EventBridge locally), never two runs of it at once. A run
 * that found nothing to do (its result's counts all 0: `{ enqueued: 0 }`) doubles the wait before the next, up to
 * {@link IDLE_MAX_SECONDS}; a run that did something, failed or said nothing countable brings it back to
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
  const idleMaxMs = Math.max(everyMs, IDLE_MAX_SECONDS * 1000);
  let idleRuns = 0;
  let running: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let nextAt = 0;
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
        // As EventBridge's rate: counted from the run's start, not its end.
        if (!stopped) schedule(startedAt + Math.min(everyMs * 2 ** idleRuns, idleMaxMs));
      });
  };
  schedule(Date.now() + everyMs);
  const work = options.onWork?.(() => {
    idleRuns = 0;
    if (!running && !stopped && nextAt - Date.now() > everyMs) schedule(Date.now() + everyMs);
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
