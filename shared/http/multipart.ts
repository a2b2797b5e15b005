import busboy from 'busboy';
import type { APIGatewayProxyEvent } from './types.ts';

/** One file part, buffered (its size is bounded by `limits.fileSize`). */
export interface MultipartFile {
  field: string;
  filename?: string;
  contentType: string;
  bytes: Buffer;
}

export interface MultipartForm {
  /** Text parts by name, in order of arrival (a repeated name keeps every value). */
  fields: { name: string; value: string }[];
  files: MultipartFile[];
}

export interface MultipartLimits {
  /** Largest file part accepted, in bytes; one byte more fails with `file-too-large` as soon as it arrives. */
  fileSize: number;
  /** Most file parts (default 3). */
  files?: number;
  /** Most text parts (default 20). */
  fields?: number;
  /** Largest text part value in bytes (default 64 KiB). */
  fieldSize?: number;
}

export type MultipartFailure = 'not-multipart' | 'malformed' | 'file-too-large' | 'too-many-parts';

/** A body that is not an acceptable `multipart/form-data` body; `message` is fit for the caller. */
export class MultipartError extends Error {
  constructor(
    readonly failure: MultipartFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MultipartError';
  }
}

/** True for `multipart/form-data` (parameters, case and spacing aside). */
export function isMultipartFormData(contentType: string | undefined): boolean {
  return mediaType(contentType) === 'multipart/form-data';
}

/** The media type of a Content-Type value, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

const CHUNK_BYTES = 256 * 1024;

/**
 * Parses a `multipart/form-data` body with busboy, fed chunk by chunk: a file part over `limits.fileSize` fails the
 * parse as soon as its first byte too many arrives, and nothing after that is decoded or read. Boundaries are
 * whatever RFC 2046 allows (quoted, with `_`, `=`, `:` or spaces, parameters without a space after `;`).
 */
export async function parseMultipart(
  source: Iterable<Uint8Array>,
  contentType: string | undefined,
  limits: MultipartLimits,
): Promise<MultipartForm> {
  if (!isMultipartFormData(contentType))
    throw new MultipartError('not-multipart', 'The body must be multipart/form-data.');
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType! },
      // One byte over the limit is what busboy reports: it signals `limit` when a file reaches `fileSize` exactly.
      limits: {
        fileSize: limits.fileSize + 1,
        files: limits.files ?? 3,
        fields: limits.fields ?? 20,
        fieldSize: limits.fieldSize ?? 64 * 1024,
        parts: (limits.files ?? 3) + (limits.fields ?? 20),
        headerPairs: 20,
      },
      defParamCharset: 'utf8',
    });
  } catch (cause) {
    throw new MultipartError('malformed', 'The multipart Content-Type has no usable boundary.', { cause });
  }

  const form: MultipartForm = { fields: [], files: [] };
  let failure: MultipartError | undefined;
  const fail = (error: MultipartError) => {
    failure ??= error;
  };
  parser.on('file', (field, stream, info) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limits.fileSize) chunks.push(chunk);
    });
    stream.on('limit', () =>
      fail(new MultipartError('file-too-large', `The file is larger than ${limits.fileSize} bytes.`)),
    );
    // A cut-short body (or our own destroy after a failure) errors the part's stream: without a listener that
    // would be an uncaught exception and end the process.
    stream.on('error', (cause: unknown) =>
      fail(new MultipartError('malformed', 'The multipart body is malformed.', { cause })),
    );
    stream.on('end', () => {
      if (size <= limits.fileSize)
        form.files.push({
          field,
          filename: info.filename,
          contentType: info.mimeType,
          bytes: Buffer.concat(chunks, size),
        });
    });
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated || info.nameTruncated)
      fail(new MultipartError('too-many-parts', `The form field "${name.slice(0, 100)}" is too long.`));
    else form.fields.push({ name, value });
  });
  parser.on('filesLimit', () => fail(new MultipartError('too-many-parts', 'The form has too many files.')));
  parser.on('fieldsLimit', () => fail(new MultipartError('too-many-parts', 'The form has too many fields.')));
  parser.on('partsLimit', () => fail(new MultipartError('too-many-parts', 'The form has too many parts.')));
  const closed = new Promise<void>((resolve) => {
    parser.on('close', () => resolve());
    parser.on('error', (cause: unknown) => {
      fail(new MultipartError('malformed', 'The multipart body is malformed.', { cause }));
      resolve();
    });
  });

  for (const chunk of source) {
    for (let offset = 0; offset < chunk.length; offset += CHUNK_BYTES) {
      const written = new Promise<void>((resolve) =>
        parser.write(chunk.subarray(offset, offset + CHUNK_BYTES), () => resolve()),
      );
      await Promise.race([written, closed]);
      if (failure) break;
    }
    if (failure) break;
  }
  if (failure) {
    parser.destroy();
    throw failure;
  }
  parser.end();
  await closed;
  if (failure) throw failure;
  return form;
}

/**
 * The body of an API Gateway event as a sequence of chunks, decoded lazily: a base64 body (binary media types) is
 * decoded a piece at a time, so a parser that stops early never decodes the rest.
 */
export function* eventBodyChunks(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): Generator<Buffer> {
  const body = event.body;
  if (body == null || body.length === 0) return;
  if (!event.isBase64Encoded) {
    yield Buffer.from(body, 'utf8');
    return;
  }
  const step = 4 * 65_536; // whole base64 quanta: 256 Ki characters, 192 KiB of bytes
  for (let offset = 0; offset < body.length; offset += step)
    yield Buffer.from(body.slice(offset, offset + step), 'base64');
}
