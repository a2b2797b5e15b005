/**
 * A dependency that is throttling us or briefly unable to serve (a DynamoDB partition over its write units, a queue
 * refusing sends): the request it was part of answers 503 with `Retry-After` (nothing accepted that was not
 * recorded), and a queue worker's job is retried. The AWS SDK has already retried such an error with backoff when
 * it reaches us, so the caller is asked to come back a little later rather than at once.
 */

/** Seconds a caller is asked to wait after an overload: AWS's partitions and queues recover within seconds. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/**
 * Error names AWS services answer when they throttle a caller (DynamoDB, SQS, S3, KMS, STS...): specific enough to
 * be recognised by name alone.
 */
const THROTTLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'SlowDown',
  'KmsThrottled',
  'KMSThrottlingException',
]);

/** Names that mean "briefly unavailable" only when an AWS service answered them (other libraries reuse them). */
const AWS_UNAVAILABLE_NAMES = new Set(['InternalServerError', 'ServiceUnavailable', 'ServiceUnavailableException']);

/**
 * Raised by our own store code when a dependency did not take the work after its retries (a batch whose items
 * DynamoDB kept leaving unprocessed, a limiter or ledger that could not be read or written).
 */
export class DependencyOverloadedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DependencyOverloadedError';
  }
}

/**
 * Whether `error` is an overload: a throttle or a brief unavailability of an AWS service, or our own
 * {@link DependencyOverloadedError}, found on the error itself or along its `cause` chain (an adapter that wrapped it).
 */
export function isOverload(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof DependencyOverloadedError) return true;
    const name = (current as { name?: unknown }).name;
    if (typeof name === 'string') {
      if (THROTTLE_NAMES.has(name)) return true;
      if (AWS_UNAVAILABLE_NAMES.has(name) && (current as { $metadata?: unknown }).$metadata !== undefined) return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
