import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs (Powertools Logger). One logger per function, created at module scope. The service name is
 * the one the stack gives each function (POWERTOOLS_SERVICE_NAME), else `switchboard-<function>`; the level comes
 * from POWERTOOLS_LOG_LEVEL. Each invocation adds the Lambda context (`function_request_id`, `cold_start`,
 * `function_name`) and its own keys, dropped when it ends (`observeInvocation`). Never log headers, bodies or
 * tokens: the request id is what ties a log line to a request.
 */
export function createLogger(functionName: string): Logger {
  return new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || `switchboard-${functionName}`,
    persistentKeys: { fn: functionName },
  });
}

export type { Logger };
