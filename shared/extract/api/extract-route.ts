import {
  BOTS_API_AUTH_ERRORS,
  IDEMPOTENCY_ERRORS,
  JSON_BODY_ERRORS,
  type PublicOperationDocs,
} from '#shared/contract/api-docs.ts';
import { json, type Context, type HttpEvent, type HttpResult } from '#shared/http/types.ts';
import { withMeta } from '#shared/kernel/validation/meta.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { PdfPage } from '#shared/pdf/index.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import type { ExtractInput, ExtractLog } from '../extract-pdf.ts';
import { readExtractRequest, type ExtractMode } from './extract-request.ts';
import { extractResult } from './schemas.ts';

/** Time kept between the end of extraction and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 3_000;

/** `POST /api/v1/ai/extract` once the project API token passed: the request read, the pages extracted, answered. */
export function extractHandler(deps: {
  extractPdf: (input: ExtractInput) => Promise<PdfPage[]>;
  log: Pick<ExtractLog, 'warn'> & { info(message: string, attributes: Record<string, unknown>): void };
}) {
  return async function serveExtract(
    event: HttpEvent<unknown, { grant: ProjectApiTokenGrant }>,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<HttpResult> {
    const request = await readExtractRequest(event);
    const started = Date.now();
    const pages = await deps.extractPdf({
      caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
      source: request.source,
      deadline: started + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS,
    });
    deps.log.info('extract', {
      pages: pages.length,
      ocrPages: pages.filter((p) => p.ocr).length,
      ms: Date.now() - started,
    });
    return json(200, responseBody(pages, request.mode));
  };
}

/** `text`: the readable pages' text joined by a blank line; `pages`: every page with its `ocr` flag, in `dados`. */
function responseBody(pages: PdfPage[], mode: ExtractMode): Record<string, unknown> {
  if (mode === 'pages')
    return { success: true, dados: { pages: pages.map(({ page, text, ocr }) => ({ page, text, ocr })) } };
  return {
    success: true,
    result: pages
      .filter((p) => p.text.length > 0)
      .map((p) => p.text)
      .join('\n\n'),
  };
}

/** The route in the API reference (the OpenAPI document). */
export function extractPdfDocs(): PublicOperationDocs {
  // `file` has a media type and no JSON type: generators type it as a Blob (hey-api, orval) or `unknown`
  // (openapi-typescript), and send it as a file part; `type: string` would make it text.
  const multipart = {
    type: 'object',
    properties: {
      file: {
        contentMediaType: 'application/pdf',
        description: 'The PDF (starts with `%PDF-`), 25 MB at most.',
      },
      mode: { type: 'string', enum: ['text', 'pages'], default: 'text' },
    },
    required: ['file'],
    additionalProperties: false,
  };
  // A copy of the JSON request schema of ./extract-request.ts, flagged as such in the document.
  const fromUploadCopy = withMeta(
    z.strictObject({
      fileKey: z.string().check(z.minLength(1), z.maxLength(1024)),
      mode: z._default(z.enum(['text', 'pages']), 'text'),
    }),
    { id: 'ExtractFromUploadRequest' },
  );
  return {
    'POST /api/v1/ai/extract': {
      operationId: 'extractPdf',
      summary: 'Extract the text of a PDF (1 bot credit)',
      description:
        'Pages with a text layer are read as text, the others with OCR. Send the PDF as multipart `file` (25 MB at most; ' +
        'on AWS about 4.5 MB, above that use `POST /api/v1/ai/extract/uploads` then JSON `{ fileKey }`).',
      tags: ['AI'],
      security: 'apiToken',
      idempotent: true,
      rateLimited: true,
      requestBodies: [
        { contentType: 'multipart/form-data', schema: multipart, source: 'multipart' },
        {
          contentType: 'application/json',
          description: 'A PDF uploaded with `POST /api/v1/ai/extract/uploads`.',
          schema: fromUploadCopy,
          source: 'copy',
          // The SDK sends this form with `extractFromUpload` (sdk/src/index.ts).
          sdk: false,
        },
      ],
      responses: {
        200: { description: 'The text (`mode: text`) or the pages (`mode: pages`).', body: extractResult },
      },
      errors: {
        ...JSON_BODY_ERRORS,
        400: ['VALIDATION_ERROR', 'INVALID_JSON', 'FILE_TOO_LARGE'],
        ...BOTS_API_AUTH_ERRORS,
        402: ['ERR_NO_BOT_CREDITS'],
        ...IDEMPOTENCY_ERRORS,
        502: ['EXTRACTION_FAILED'],
        504: ['GATEWAY_TIMEOUT'],
      },
    },
  };
}
