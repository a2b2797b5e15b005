import { wireDueSweeper } from '#shared/messaging/index.ts';
import { platform } from '#functions/_wiring/platform.ts';

/**
 * Every minute (every 2 s locally): scheduled sends due within the next three minutes, and what a crash left
 * unqueued, onto the outbound queue, each delayed to its time. Built once per cold start.
 */
export const handler = wireDueSweeper(platform('due-sweeper'));
