import { startFauxqsWithQueuesAndBuckets } from './emulators.ts';
import { serveInThread } from './threads.ts';

/** The SQS + S3 stand-in's thread: fauxqs with the queues and buckets (./emulators.ts), on 127.0.0.1. */
await serveInThread(async ({ dir }: { dir: string }) => {
  const { stop, ...info } = await startFauxqsWithQueuesAndBuckets(dir);
  return { info, stop };
});
