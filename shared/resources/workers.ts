import type { QueueKey } from './queues.ts';

/** SQS-triggered and scheduled functions. infra/ wires event sources and schedules; local/ runs pollers and timers. */
export interface QueueWorkerDefinition {
  fn: string;
  queue: QueueKey;
  batchSize: number;
  /** Seconds a batch may wait to fill (Lambda's MaximumBatchingWindowInSeconds). */
  batchWindowSeconds: number;
  timeoutSeconds: number;
  memoryMb: number;
  /** Concurrent batches (Lambda's maximum concurrency on the event source; local pollers in parallel). */
  maxConcurrency: number;
}

export interface ScheduledWorkerDefinition {
  fn: string;
  /** How often it runs on AWS (EventBridge rate, minutes). */
  everyMinutesOnAws: number;
  /** How often the local runner calls it. */
  everySecondsLocally: number;
  timeoutSeconds: number;
  memoryMb: number;
}

export const queueWorkers: QueueWorkerDefinition[] = [];

export const scheduledWorkers: ScheduledWorkerDefinition[] = [
  { fn: 'credit-sweeper', everyMinutesOnAws: 1, everySecondsLocally: 5, timeoutSeconds: 60, memoryMb: 512 },
];
