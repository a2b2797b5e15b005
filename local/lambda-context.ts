import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

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

/** Runs a handler with its timeout, as Lambda would: past it the invocation fails. */
export async function invokeWithTimeout<T>(run: () => Promise<T>, timeoutSeconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LambdaTimeoutError(timeoutSeconds)), timeoutSeconds * 1000);
  });
  try {
    return await Promise.race([run(), timeout]);
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
