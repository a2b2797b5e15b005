import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs (Powertools Logger). One logger per function, created at module scope. The level comes from
 * POWERTOOLS_LOG_LEVEL. Never log headers, bodies or tokens: the request id is what ties a log line to a request.
 */
export function createLogger(functionName: string): Logger {
  return new Logger({ serviceName: 'switchboard', persistentKeys: { fn: functionName } });
}

export type { Logger };
