import type { ScheduledWorkerDefinition } from '#shared/contract/workers.ts';
import { invokeWithTimeout, lambdaContext } from './lambda-context.ts';

export type ScheduledHandler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/** Calls a scheduled worker every `everySecondsLocally`, never two runs of it at once (EventBridge locally). */
export function startSchedule(
  worker: ScheduledWorkerDefinition,
  handler: ScheduledHandler,
  onError: (e: unknown) => void,
) {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    const event = {
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      time: new Date().toISOString(),
      detail: {},
    };
    running = invokeWithTimeout(
      () => handler(event, lambdaContext(worker.fn, worker.timeoutSeconds, worker.memoryMb)),
      worker.timeoutSeconds,
      { functionName: worker.fn, event },
    )
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, worker.everySecondsLocally * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
