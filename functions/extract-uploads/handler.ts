import { wireExtractUploads } from '#shared/extract/index.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('extract-uploads');
const { cfg, logger, metrics } = platform;

/** `POST /api/v1/ai/extract/uploads`: a presigned upload for one PDF too large for a request. Free. */
export const handler = botsApiFunction({ logger, metrics, auth: wireBotsApiAuth(platform) }).handler(
  await wireExtractUploads(platform, { s3: s3Client(cfg) }),
);
