import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { QueueKey } from '#shared/contract/queues.ts';
import { leanSdkClient } from '#shared/kernel/aws/clients.ts';
import { queueWorkers, scheduledWorkers } from '#shared/contract/workers.ts';
import { creditsSettings } from '#shared/credits/index.ts';
import { eventsSettings } from '#shared/events/index.ts';
import { loadFunction } from './load-function.ts';
import { startPoller, type SqsHandler } from './poller.ts';
import { type ScheduleOptions, startSchedule, type ScheduledHandler } from './scheduler.ts';
import { onChargesWritten, onDueWritten, onMarksWritten, onWork } from './work-signal.ts';

/**
 * What brings a sweeper back to its pace after idle runs, where it is not any work coming in: the due sweeper's work
 * is due entries, which only a few requests write (./work-signal.ts `onDueWritten`); the event sweeper's is outbox
 * marks once older than its bound, so it also runs once a mark written (or left by the previous process) is that old;
 * the credit sweeper's, charges still open after theirs.
 */
function wakesOf(fn: string): ScheduleOptions {
  if (fn === 'due-sweeper') return { onWork: onDueWritten };
  if (fn === 'event-sweeper')
    return { onWork: onMarksWritten, settleMs: eventsSettings.read().EVENT_SWEEP_AFTER_SECONDS * 1000 };
  if (fn === 'credit-sweeper')
    return { onWork: onChargesWritten, settleMs: creditsSettings.read().CREDIT_SWEEP_AFTER_SECONDS * 1000 };
  return { onWork };
}

export interface WorkersOptions {
  region: string;
  awsEndpoint: string;
  queueUrls: Record<QueueKey, string>;
  /** The queue workers to run (all by default): a benchmark's diagnostic may leave one out. */
  queueWorkerFns?: string[];
  logWorkerErrors?: boolean;
}

/**
 * The SQS-triggered and scheduled functions of the local runner: a poller per queue worker (Lambda's event source
 * mapping) and a timer per scheduled worker (EventBridge), each calling the function's handler loaded from the same
 * module that is deployed. Runs in the runner's workers thread (./workers-thread.ts) or, if asked, on the main one.
 */
export async function startWorkers(options: WorkersOptions): Promise<{ stop(): Promise<void> }> {
  // The pollers' receives and deletes are a share of every queued job's CPU: the service's lean client options.
  const sqs = leanSdkClient(
    new SQSClient({
      region: options.region,
      endpoint: options.awsEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const logError = (fn: string) => (error: unknown) => {
    if (options.logWorkerErrors !== false) console.error(`[${fn}]`, error);
  };
  const workers = queueWorkers.filter((w) => !options.queueWorkerFns || options.queueWorkerFns.includes(w.fn));
  const pollers = await Promise.all(
    workers.map(async (worker) => {
      const queueUrl = options.queueUrls[worker.queue];
      const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })))
        .Attributes!.QueueArn!;
      const handler = (await loadFunction(worker.fn)) as SqsHandler;
      return startPoller({
        sqs,
        queueUrl,
        queueArn: arn,
        region: options.region,
        worker,
        handler,
        onError: logError(worker.fn),
      });
    }),
  );
  const schedules = await Promise.all(
    scheduledWorkers.map(async (worker) =>
      startSchedule(
        worker,
        (await loadFunction(worker.fn)) as ScheduledHandler,
        logError(worker.fn),
        wakesOf(worker.fn),
      ),
    ),
  );
  return {
    async stop() {
      await Promise.all([...pollers, ...schedules].map((p) => p.stop()));
      sqs.destroy();
    },
  };
}
