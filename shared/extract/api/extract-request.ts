import { FileTooLargeError } from '#shared/extract/errors.ts';
import { MAX_PDF_BYTES, type ExtractSource } from '#shared/extract/extract-pdf.ts';
import { HttpError } from '#shared/http/errors.ts';
import { parseJsonObjectBody, validate } from '#shared/http/middleware.ts';
import {
  eventBodyChunks,
  isMultipartFormData,
  mediaType,
  MultipartError,
  parseMultipart,
} from '#shared/http/multipart.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { startsLikePdf } from '#shared/pdf/index.ts';
import type { ErrorDetail } from '#shared/kernel/validation/issues.ts';
import * as z from '#shared/kernel/validation/zod.ts';

export type ExtractMode = 'text' | 'pages';

export interface ExtractRequest {
  source: ExtractSource;
  mode: ExtractMode;
}

const MODES = ['text', 'pages'] as const;

const jsonRequest = z.strictObject({
  fileKey: z.string().check(z.minLength(1), z.maxLength(1024)),
  mode: z._default(z.enum(MODES), 'text'),
});

/**
 * The extract request, either way it comes:
 * - `multipart/form-data` with a `file` part (the PDF) and an optional `mode` part;
 * - JSON `{ fileKey, mode? }` naming an upload made with `POST /api/v1/ai/extract/uploads` (AWS: bodies over 6 MB
 *   cannot reach a Lambda).
 * A file over 25 MB is refused while it streams in (400 FILE_TOO_LARGE); every other problem is a 400
 * VALIDATION_ERROR listing all of them at once.
 */
export async function readExtractRequest(event: HttpEvent): Promise<ExtractRequest> {
  const contentType = event.normalizedHeaders['content-type'];
  if (mediaType(contentType) === 'application/json') {
    const body = validate(jsonRequest, parseJsonObjectBody(event));
    return { source: { fileKey: body.fileKey }, mode: body.mode };
  }
  if (!isMultipartFormData(contentType)) {
    throw invalid('The body must be multipart/form-data with the PDF in a "file" part (or JSON with a "fileKey").', [
      { path: 'content-type', message: 'Expected multipart/form-data', code: 'invalid_type' },
    ]);
  }

  let form: Awaited<ReturnType<typeof parseMultipart>>;
  try {
    form = await parseMultipart(eventBodyChunks(event), contentType, {
      fileSize: MAX_PDF_BYTES,
      files: 3,
      fields: 10,
      fieldSize: 1024,
    });
  } catch (error) {
    if (!(error instanceof MultipartError)) throw error;
    if (error.failure === 'file-too-large') throw new FileTooLargeError(MAX_PDF_BYTES);
    throw invalid(error.message, [
      { path: '', message: error.message, code: error.failure === 'malformed' ? 'invalid_format' : 'too_big' },
    ]);
  }

  const details: ErrorDetail[] = [];
  const files = form.files.filter((f) => f.field === 'file');
  const fileFields = form.fields.filter((f) => f.name === 'file');
  const modes = form.fields.filter((f) => f.name === 'mode');
  for (const name of new Set([...form.files.map((f) => f.field), ...form.fields.map((f) => f.name)])) {
    if (name !== 'file' && name !== 'mode')
      details.push({ path: name, message: `Unknown field "${name}"`, code: 'unrecognized_keys' });
  }
  if (files.length === 0) {
    details.push(
      fileFields.length
        ? {
            path: 'file',
            message: 'The "file" part must be a file (Content-Disposition with a filename).',
            code: 'invalid_type',
          }
        : { path: 'file', message: 'The PDF is required in a "file" part.', code: 'invalid_type' },
    );
  } else if (files.length > 1) {
    details.push({ path: 'file', message: 'Send one PDF per request.', code: 'too_big' });
  } else if (!startsLikePdf(files[0]!.bytes)) {
    details.push({ path: 'file', message: 'The file is not a PDF: it does not start with "%PDF-".', code: 'not_pdf' });
  }
  if (modes.length > 1) details.push({ path: 'mode', message: 'Give "mode" once.', code: 'too_big' });
  const mode = modes[0]?.value ?? 'text';
  if (!(MODES as readonly string[]).includes(mode)) {
    details.push({ path: 'mode', message: 'Invalid option: expected one of "text"|"pages"', code: 'invalid_value' });
  }
  if (details.length) throw invalid(details.length === 1 ? details[0]!.message : 'The request is invalid.', details);
  return { source: { bytes: files[0]!.bytes }, mode: mode as ExtractMode };
}

function invalid(message: string, details: ErrorDetail[]): HttpError {
  return new HttpError(400, 'VALIDATION_ERROR', message, { details });
}
