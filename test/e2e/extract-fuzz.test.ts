import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';

/**
 * Random and mutated bodies against the running service: the process survives every one, and no answer is a 500 or
 * carries an internal cause (stack, file path, library error name). The project has no credits, so every body is
 * either refused as invalid (400) or reaches the balance (402).
 */
let svc: ServiceClient;
let token: string;
let projectId: string;
let seed: Buffer;

beforeAll(async () => {
  // Far more requests than the Bots API's 60 a minute: the limit is not what this test is about.
  svc = await sharedService();
  ({ token, projectId } = await svc.newProject({ monthlyBotCredits: 0 }));
  const pdf = await textPdf(['Seed document for the fuzzer']);
  seed = Buffer.concat([
    Buffer.from(
      '--fz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n',
    ),
    Buffer.from(pdf),
    Buffer.from('\r\n--fz--\r\n'),
  ]);
});
afterAll(async () => svc?.close());

const LEAKS = /(\n\s+at |\/work\/|node_modules|TypeError|ReferenceError|InvalidPDFException|FormatError|Busboy|busboy)/;

async function send(body: Buffer, contentType: string) {
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  const text = await res.text();
  return { status: res.status, text };
}

function check(res: { status: number; text: string }) {
  expect([400, 402]).toContain(res.status);
  const body = JSON.parse(res.text);
  expect(Object.keys(body).every((k) => ['success', 'error', 'message', 'details', 'requestId'].includes(k))).toBe(
    true,
  );
  expect(res.text).not.toMatch(LEAKS);
}

describe('POST /api/v1/ai/extract fuzz', () => {
  it('answers random bytes under multipart, PDF, JSON and odd content types with a 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4096 }),
        fc.constantFrom(
          'multipart/form-data; boundary=fz',
          'multipart/form-data',
          'application/pdf',
          'application/json',
          'text/plain',
          'multipart/form-data; boundary="a b"',
        ),
        async (bytes, contentType) => check(await send(Buffer.from(bytes), contentType)),
      ),
      { numRuns: 40 },
    );
  });

  it('answers mutated valid multipart PDFs with a 400 or 402, never a 500, and charges nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.uint8Array({ minLength: 1, maxLength: 32 }),
        fc.boolean(),
        async (at, bytes, truncate) => {
          const position = at % seed.length;
          const body = truncate
            ? seed.subarray(0, position)
            : Buffer.concat([seed.subarray(0, position), Buffer.from(bytes), seed.subarray(position + bytes.length)]);
          check(await send(body, 'multipart/form-data; boundary=fz'));
        },
      ),
      { numRuns: 40 },
    );
    const credits = await svc.admin('GET', `/projects/${projectId}/bot-credits`);
    expect(credits.body.disponivel).toBe(0);
    expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
  });
});
