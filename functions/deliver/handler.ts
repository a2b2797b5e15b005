import { deliverHandler } from '#functions/_wiring/deliver.ts';

/**
 * `deliveries` queue → one HTTP attempt per job, all jobs of the batch at once. Jobs to retry later are postponed
 * in the queue and reported as batch item failures, so SQS keeps them until their next attempt.
 */
export const handler = await deliverHandler('deliver');
