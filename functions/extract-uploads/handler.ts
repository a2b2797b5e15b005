import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3ExtractUploadStore } from '#shared/extract/adapters/s3-extract-upload-store.ts';
import { MAX_PDF_BYTES } from '#shared/extract/extract-pdf.ts';
import { makeCreateUpload } from '#shared/extract/uploads.ts';
import { parseJsonObjectBody, validate } from '#shared/http/middleware.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

/** How long an upload slot stays usable. */
const UPLOAD_EXPIRES_SECONDS = 900;

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('extract-uploads');
const metrics = new PowertoolsMetrics('extract-uploads');
const table = dynamoTable(cfg);
const createUpload = makeCreateUpload({
  uploads: new S3ExtractUploadStore(s3Client(cfg), requiredSetting(cfg, 'BUCKET_TRANSFER')),
  maxBytes: MAX_PDF_BYTES,
  expiresInSeconds: UPLOAD_EXPIRES_SECONDS,
});

const emptyBody = z.strictObject({});

/**
 * `POST /api/v1/ai/extract/uploads`: a presigned S3 POST for one PDF of up to 25 MB (enforced by S3 through the
 * policy's content-length-range), for files too large to travel inside a Lambda request. Free; the extraction that
 * follows (`POST /api/v1/ai/extract` with `{ fileKey }`) is charged.
 */
export const handler = botsApiFunction({ logger, metrics, auth: botsApiAuthFromConfig(cfg, table, metrics) }).handler(
  async (event) => {
    if (event.body) validate(emptyBody, parseJsonObjectBody(event));
    const upload = await createUpload(event.auth.grant.projectId);
    return json(
      200,
      {
        success: true,
        uploadUrl: upload.uploadUrl,
        method: 'POST',
        fields: upload.fields,
        fileKey: upload.fileKey,
        expiresAt: upload.expiresAt.toISOString(),
        maxBytes: upload.maxBytes,
      },
      { 'cache-control': 'no-store' },
    );
  },
);
