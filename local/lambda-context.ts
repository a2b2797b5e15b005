import { randomUUID } from 'node:crypto';
import { tracingChannel } from 'node:diagnostics_channel';
import { InvokeStore } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/**
 * One process serves many invocations of one function at once here, as on Lambda managed instances; so, as the
 * runtime does there, each invocation runs in a scope of its own (an AsyncLocalStorage behind the runtime's
 * InvokeStore) and AWS_LAMBDA_MAX_CONCURRENCY tells Powertools to keep log keys, Lambda context and metrics in that
 * scope. Without it, the keys one request appends would show on another's log lines.
 * The runner's threads start with `--experimental-async-context-frame` (./threads.ts): the scope then costs next to
 * nothing, where Node 22's default AsyncLocalStorage hooks every promise (measured: bench/history/2026-11-house-in-order-regressions.md).
 */
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
const invocationScopes = await InvokeStore.getInstanceAsync(true);

/** A Lambda context like the one AWS passes, with the function's deadline. */
export function lambdaContext(functionName: string, timeoutSeconds: number, memoryMb: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** What one invocation is: the function and the event it was given. */
export interface Invocation {
  functionName: string;
  event: unknown;
}

/**
 * Every invocation, as a tracing channel (start, end of its promise): a tool watching the runner (bench/capacity.ts)
 * binds its own async context to it and so knows which function made each AWS call. Nothing is published to a channel
 * nobody watches.
 */
export const invocations = tracingChannel<unknown, Invocation>('switchboard:local:invocation');

/**
 * Runs a handler in an invocation scope of its own, with its timeout, as Lambda would: past it the invocation fails.
 * `invocation` names the function and its event for whoever watches `invocations`.
 */
export async function invokeWithTimeout<T>(
  run: () => Promise<T>,
  timeoutSeconds: number,
  invocation?: Invocation,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LambdaTimeoutError(timeoutSeconds)), timeoutSeconds * 1000);
  });
  const scoped = () => invocationScopes.run({}, run);
  try {
    const running = invocation && invocations.hasSubscribers ? invocations.tracePromise(scoped, invocation) : scoped();
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class LambdaTimeoutError extends Error {
  constructor(seconds: number) {
    super(`Task timed out after ${seconds} seconds`);
    this.name = 'LambdaTimeoutError';
  }
}
