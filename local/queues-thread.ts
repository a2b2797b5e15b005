import { startFauxqsWithQueuesAndBuckets, type StandInSettings } from './emulators.ts';
import { serveInThread } from './threads.ts';

/**
 * The AWS stand-ins' thread: fauxqs (SQS, S3, SNS) with the queues and buckets (./emulators.ts), and STS,
 * EventBridge, Kinesis and SES beside it, on 127.0.0.1.
 */
await serveInThread(async ({ dir, standIns }: { dir: string; standIns: StandInSettings & { dir: string } }) => {
  const { stop, ...info } = await startFauxqsWithQueuesAndBuckets(dir, standIns);
  return { info, stop };
});
