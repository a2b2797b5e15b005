import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '#shared/contract/api-docs.ts';
import { parseJsonObjectBody, validate } from '#shared/http/middleware.ts';
import { json, type HttpEvent, type HttpResult } from '#shared/http/types.ts';
import { withMeta } from '#shared/kernel/validation/meta.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import type { CreatedUpload } from '../uploads.ts';
import { extractUpload } from './schemas.ts';

const emptyBody = z.strictObject({});

/**
 * `POST /api/v1/ai/extract/uploads` once the project API token passed: a presigned S3 POST for one PDF of up to
 * 25 MB (enforced by S3 through the policy's content-length-range), for files too large to travel inside a Lambda
 * request. Free; the extraction that follows (`POST /api/v1/ai/extract` with `{ fileKey }`) is charged.
 */
export function createUploadHandler(createUpload: (projectId: string) => Promise<CreatedUpload>) {
  return async function serveCreateUpload(
    event: HttpEvent<unknown, { grant: ProjectApiTokenGrant }>,
  ): Promise<HttpResult> {
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
  };
}

/** The route in the API reference (the OpenAPI document). */
export function extractUploadDocs(): PublicOperationDocs {
  return {
    'POST /api/v1/ai/extract/uploads': {
      operationId: 'createExtractUpload',
      summary: 'Get an upload slot for a large PDF (free)',
      description: 'A presigned S3 POST for one PDF of up to 25 MB, usable for 15 minutes. No body (or `{}`).',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      requestBodies: [
        {
          contentType: 'application/json',
          description: 'Optional: an empty object (any field is refused).',
          // A copy of `emptyBody` above, flagged as such in the document.
          schema: withMeta(z.strictObject({}), { id: 'ExtractUploadRequest' }),
          source: 'copy',
        },
      ],
      requestBodyOptional: true,
      responses: { 200: { description: 'Where and how to upload.', body: extractUpload } },
      errors: { ...JSON_BODY_ERRORS, ...BOTS_API_AUTH_ERRORS },
    },
  };
}
