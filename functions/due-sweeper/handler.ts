import { config } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { workerFunction } from '#shared/http/worker.ts';
import { makeSweepDue } from '#shared/messaging/index.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { deferredSendsOn } from '#functions/_wiring/outbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('due-sweeper');
const sweepDue = makeSweepDue(deferredSendsOn(cfg, dynamoTable(cfg), logger));

/**
 * Every minute (every 2 s locally): scheduled sends due within the next three minutes, and what a crash left
 * unqueued, onto the outbound queue, each delayed to its time.
 */
export const handler = workerFunction<unknown, { enqueued: number }>(logger).handler(async () => sweepDue());
