import { describe, expect, it } from 'vitest';
import { eventBodyChunks, MultipartError, parseMultipart } from '#shared/http/multipart.ts';

function body(boundary: string, parts: { name: string; filename?: string; data: string | Buffer }[], epilogue = '') {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n\r\n`),
      Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n${epilogue}`));
  return Buffer.concat(chunks);
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MultipartError);
  return (error as MultipartError).failure;
}

describe('parseMultipart', () => {
  it('reads files and fields with odd but valid boundaries', async () => {
    const cases: [string, string][] = [
      ['simple', 'multipart/form-data; boundary=simple'],
      ['__under_scores__', 'multipart/form-data;boundary=__under_scores__'],
      ['with spaces and "=:', `multipart/form-data; boundary="with spaces and \\"=:"`],
      ['----=_NextPart_000_0001', 'MULTIPART/FORM-DATA ; charset=UTF-8 ;boundary="----=_NextPart_000_0001"'],
      ['x'.repeat(70), `multipart/form-data; boundary=${'x'.repeat(70)}`],
    ];
    for (const [boundary, contentType] of cases) {
      const form = await parseMultipart(
        [
          body(boundary, [
            { name: 'mode', data: 'pages' },
            { name: 'file', filename: 'a.pdf', data: '%PDF-1.7 bytes' },
          ]),
        ],
        contentType,
        { fileSize: 100 },
      );
      expect(form.fields, contentType).toEqual([{ name: 'mode', value: 'pages' }]);
      expect(
        form.files.map((f) => [f.field, f.filename, f.bytes.toString()]),
        contentType,
      ).toEqual([['file', 'a.pdf', '%PDF-1.7 bytes']]);
    }
  });

  it('accepts a file of exactly the limit and refuses one byte more', async () => {
    const exact = await parseMultipart(
      [body('b', [{ name: 'file', filename: 'f', data: Buffer.alloc(1000, 1) }])],
      'multipart/form-data; boundary=b',
      { fileSize: 1000 },
    );
    expect(exact.files[0]!.bytes.length).toBe(1000);
    expect(
      await failure(
        parseMultipart(
          [body('b', [{ name: 'file', filename: 'f', data: Buffer.alloc(1001, 1) }])],
          'multipart/form-data; boundary=b',
          { fileSize: 1000 },
        ),
      ),
    ).toBe('file-too-large');
  });

  it('stops reading the body as soon as the file is over the limit', async () => {
    const big = body('b', [{ name: 'file', filename: 'f', data: Buffer.alloc(4 * 1024 * 1024, 1) }]);
    let pulled = 0;
    function* source() {
      for (let offset = 0; offset < big.length; offset += 64 * 1024) {
        pulled++;
        yield big.subarray(offset, offset + 64 * 1024);
      }
    }
    expect(await failure(parseMultipart(source(), 'multipart/form-data; boundary=b', { fileSize: 256 * 1024 }))).toBe(
      'file-too-large',
    );
    expect(pulled).toBeLessThanOrEqual(6);
  });

  it('decodes a base64 event body lazily, in whole quanta', () => {
    const bytes = Buffer.from(Array.from({ length: 700_001 }, (_, i) => i % 251));
    const chunks = [...eventBodyChunks({ body: bytes.toString('base64'), isBase64Encoded: true })];
    expect(chunks.length).toBeGreaterThan(2);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect([...eventBodyChunks({ body: 'plain', isBase64Encoded: false })].map(String)).toEqual(['plain']);
    expect([...eventBodyChunks({ body: null, isBase64Encoded: false })]).toEqual([]);
  });

  it('refuses what is not multipart/form-data, or has no boundary, or is cut short', async () => {
    expect(await failure(parseMultipart([Buffer.from('{}')], 'application/json', { fileSize: 10 }))).toBe(
      'not-multipart',
    );
    expect(await failure(parseMultipart([Buffer.from('x')], undefined, { fileSize: 10 }))).toBe('not-multipart');
    expect(await failure(parseMultipart([Buffer.from('x')], 'multipart/form-data', { fileSize: 10 }))).toBe(
      'malformed',
    );
    const cut = body('b', [{ name: 'file', filename: 'f', data: 'abc' }]).subarray(0, 60);
    expect(await failure(parseMultipart([cut], 'multipart/form-data; boundary=b', { fileSize: 100 }))).toBe(
      'malformed',
    );
  });

  it('refuses too many parts and over-long fields', async () => {
    const many = body(
      'b',
      Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, data: 'v' })),
    );
    expect(await failure(parseMultipart([many], 'multipart/form-data; boundary=b', { fileSize: 100 }))).toBe(
      'too-many-parts',
    );
    const long = body('b', [{ name: 'mode', data: 'x'.repeat(2000) }]);
    expect(
      await failure(parseMultipart([long], 'multipart/form-data; boundary=b', { fileSize: 100, fieldSize: 1024 })),
    ).toBe('too-many-parts');
  });

  it('returns an empty form for a body with only the closing boundary', async () => {
    const form = await parseMultipart([Buffer.from('--b--\r\n')], 'multipart/form-data; boundary=b', { fileSize: 10 });
    expect(form).toEqual({ fields: [], files: [] });
  });
});
