import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';

/**
 * What every function does around each invocation, first in its middleware chain (HTTP functions through
 * `httpFunction`, workers through `functions/_wiring/worker.ts`): the logger takes the Lambda context
 * (`function_request_id`, `cold_start`, `function_name`...) and drops the keys the invocation appended when it ends;
 * the metrics it recorded are published, failed or not. Where one process serves invocations concurrently (Lambda
 * managed instances, the local runner), Powertools keeps those keys and metrics per invocation in the runtime's
 * InvokeStore (`local/lambda-context.ts`).
 */
export function observeInvocation(logger: Logger, metrics?: InvocationMetrics): MiddlewareObj[] {
  const chain: MiddlewareObj[] = [injectLambdaContext(logger, { resetKeys: true }) as MiddlewareObj];
  if (metrics) {
    const publish = () => metrics.publish();
    chain.push({ name: 'publishMetrics', after: publish, onError: publish });
  }
  return chain;
}
