import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { readExtractRequest } from '#shared/extract/api/extract-request.ts';
import { asHttpError } from '#shared/http/domain-errors.ts';
import { HttpError } from '#shared/http/errors.ts';
import { MultipartError, parseMultipart } from '#shared/http/multipart.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { extractPdfPages, PdfError } from '#shared/pdf/index.ts';
import { mixedPdf } from '#test/support/pdf-fixtures.ts';

/**
 * Fuzzing the two parsers that take bytes from the internet: whatever arrives, they answer a result or their own
 * typed error (a 400 at the edge), never anything else, and never an uncaught exception (vitest fails the run on one).
 */
const boundaryChars = fc.constantFrom(..."abcXYZ0189_-=.:+/ '()".split(''));
const boundary = fc.string({ unit: boundaryChars, minLength: 1, maxLength: 70 }).filter((b) => !b.endsWith(' '));

function validBody(b: string, file: Uint8Array, mode: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="mode"\r\n\r\n${mode}\r\n`),
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
}

/** A body mutated at random: bytes overwritten, a slice cut out, or the tail dropped. */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('overwrite' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), length: fc.nat({ max: 64 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

type Mutation =
  | { kind: 'overwrite'; at: number; bytes: Uint8Array }
  | { kind: 'cut'; at: number; length: number }
  | { kind: 'truncate'; at: number };

function mutate(body: Uint8Array, m: Mutation): Buffer {
  const copy = Buffer.from(body);
  const at = body.length ? m.at % body.length : 0;
  if (m.kind === 'overwrite') {
    copy.set(m.bytes.subarray(0, Math.max(0, copy.length - at)), at);
    return copy;
  }
  if (m.kind === 'cut') return Buffer.concat([copy.subarray(0, at), copy.subarray(at + m.length)]);
  return copy.subarray(0, at);
}

async function outcome(promise: Promise<unknown>, allowed: (error: unknown) => boolean): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if (!allowed(error)) throw error;
  }
}

const quoted = (b: string) => (/[^A-Za-z0-9_-]/.test(b) ? `"${b.replace(/(["\\])/g, '\\$1')}"` : b);

describe('multipart parser fuzz', () => {
  it('answers a form or MultipartError for random bytes under any content type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4096 }),
        fc.oneof(
          boundary.map((b) => `multipart/form-data; boundary=${quoted(b)}`),
          fc.string(),
        ),
        async (bytes, contentType) => {
          await outcome(
            parseMultipart([Buffer.from(bytes)], contentType, { fileSize: 1024 }),
            (e) => e instanceof MultipartError,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers a form or MultipartError for mutated valid bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        boundary,
        fc.uint8Array({ maxLength: 2048 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (b, file, mutations) => {
          let body: Buffer = validBody(b, file, 'text');
          for (const m of mutations) body = mutate(body, m);
          await outcome(
            parseMultipart([body], `multipart/form-data; boundary=${quoted(b)}`, { fileSize: 1024 }),
            (e) => e instanceof MultipartError,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('round-trips any file under any valid boundary', async () => {
    await fc.assert(
      fc.asyncProperty(boundary, fc.uint8Array({ maxLength: 4096 }), async (b, file) => {
        const form = await parseMultipart([validBody(b, file, 'pages')], `multipart/form-data;boundary=${quoted(b)}`, {
          fileSize: 4096,
        });
        expect(form.fields).toEqual([{ name: 'mode', value: 'pages' }]);
        expect(form.files).toHaveLength(1);
        expect(Buffer.compare(form.files[0]!.bytes, Buffer.from(file))).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});

describe('extract request fuzz (the HTTP edge)', () => {
  const event = (body: Buffer, contentType: string): HttpEvent =>
    ({
      body: body.toString('base64'),
      isBase64Encoded: true,
      normalizedHeaders: { 'content-type': contentType },
    }) as unknown as HttpEvent;

  it('answers a request or a 400 for random bodies and content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.oneof(fc.constant('application/json'), fc.constant('multipart/form-data; boundary=b'), fc.string()),
        async (bytes, contentType) => {
          await outcome(readExtractRequest(event(Buffer.from(bytes), contentType)), (e) => {
            const answer = asHttpError(e);
            return answer instanceof HttpError && answer.status === 400;
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('PDF reader fuzz', () => {
  let seed: Uint8Array;
  beforeAll(async () => {
    seed = await mixedPdf([{ text: 'First page of the seed document' }, { blank: true }, { text: 'Third page' }]);
  });

  const allowed = (e: unknown) => e instanceof PdfError;

  it('answers pages or PdfError for random bytes, with or without a PDF header and trailer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.boolean(),
        fc.boolean(),
        async (bytes, header, trailer) => {
          const file = Buffer.concat([
            Buffer.from(header ? '%PDF-1.7\n' : ''),
            Buffer.from(bytes),
            Buffer.from(trailer ? '\n%%EOF\n' : ''),
          ]);
          await outcome(extractPdfPages(file, { signal: AbortSignal.timeout(10_000) }), allowed);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers pages or PdfError for mutated valid PDFs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (mutations, keepTrailer) => {
          let file: Buffer = Buffer.from(seed);
          for (const m of mutations) file = mutate(file, m);
          if (keepTrailer) file = Buffer.concat([file, Buffer.from('\n%%EOF\n')]);
          await outcome(extractPdfPages(file, { signal: AbortSignal.timeout(10_000) }), allowed);
        },
      ),
      { numRuns: 150 },
    );
  });
});
