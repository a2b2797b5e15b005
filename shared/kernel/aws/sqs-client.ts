import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config.ts';
import { localCredentials, leanSdkClient } from './clients.ts';

let client: SQSClient | undefined;

/**
 * The SQS client, once per cold start. Locally the endpoint is explicit: fauxqs queue URLs name the host
 * `sqs.<region>.localhost`, which the SDK would otherwise try to resolve.
 */
export function sqsClient(cfg: Config): SQSClient {
  client ??= leanSdkClient(
    new SQSClient({
      region: cfg.AWS_REGION,
      ...(cfg.SQS_ENDPOINT ? { endpoint: cfg.SQS_ENDPOINT } : {}),
      ...localCredentials(cfg.SQS_ENDPOINT),
      maxAttempts: 3,
    }),
  );
  return client;
}

/** SQS allows 10 entries and 256 KiB per batch; the adapters keep a margin for attribute overhead. */
export const SQS_MAX_BATCH_ENTRIES = 10;
export const SQS_MAX_BATCH_BYTES = 240 * 1024;
/** Every SQS call the adapters make has this deadline. */
export const SQS_CALL_TIMEOUT_MS = 10_000;
