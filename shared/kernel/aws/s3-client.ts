import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.ts';
import { localCredentials, leanSdkClient } from './clients.ts';

let client: S3Client | undefined;

/** The S3 client, once per cold start. Path-style against the local stand-in. */
export function s3Client(cfg: Config): S3Client {
  client ??= leanSdkClient(
    new S3Client({
      region: cfg.AWS_REGION,
      ...(cfg.S3_ENDPOINT ? { endpoint: cfg.S3_ENDPOINT, forcePathStyle: true } : {}),
      ...localCredentials(cfg.S3_ENDPOINT),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
    }),
  );
  return client;
}
