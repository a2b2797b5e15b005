import { config } from '#shared/config/config.ts';
import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { s3Client } from '#shared/adapters/s3/clients.ts';
import { S3ExtractUploadStore } from '#shared/adapters/s3/extract-upload-store.ts';
import { MAX_PDF_BYTES } from '#shared/extract/extract-pdf.ts';
import { makeCreateUpload } from '#shared/extract/uploads.ts';
import { botsApiAuthFromConfig } from '#shared/http/bots-api-deps.ts';
import type { BotsApiCaller } from '#shared/http/bots-api.ts';
import { httpFunction, parseJsonObjectBody, validate } from '#shared/http/middleware.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/logging/logger.ts';
import * as z from '#shared/validation/zod.ts';

/** How long an upload slot stays usable. */
const UPLOAD_EXPIRES_SECONDS = 900;

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('extract-uploads');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
if (!cfg.BUCKET_TRANSFER) throw new Error('BUCKET_TRANSFER is required by extract-uploads');
const createUpload = makeCreateUpload({
  uploads: new S3ExtractUploadStore(s3Client(cfg), cfg.BUCKET_TRANSFER),
  maxBytes: MAX_PDF_BYTES,
  expiresInSeconds: UPLOAD_EXPIRES_SECONDS,
});

const emptyBody = z.strictObject({});

/**
 * `POST /api/v1/ai/extract/uploads`: a presigned S3 POST for one PDF of up to 25 MB (enforced by S3 through the
 * policy's content-length-range), for files too large to travel inside a Lambda request. Free; the extraction that
 * follows (`POST /api/v1/ai/extract` with `{ fileKey }`) is charged.
 */
export const handler = httpFunction(logger)
  .use(botsApiAuthFromConfig(cfg, table, logger))
  .handler(async (event: HttpEvent<unknown, BotsApiCaller>) => {
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
  });
