import { afterAll, beforeAll } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * The service and helpers of the extract tests (extract.test.ts, extract-uploads.test.ts), each file calling
 * {@link useExtractService} once: POST /api/v1/ai/extract through the local runner, with PDFs built by the tests.
 */
export let svc: ServiceClient;

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Uint8Array | string;
}

/** A multipart body written by hand, so the boundary and the header spelling are exactly what the test says. */
export function multipartBody(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const headers = `Content-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n${headers}`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const pdfPart = (bytes: Uint8Array): Part => ({
  name: 'file',
  filename: 'doc.pdf',
  contentType: 'application/pdf',
  data: bytes,
});

export async function post(
  token: string,
  body: Buffer | string,
  contentType: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as any, headers: res.headers };
}

export const BOUNDARY = 'test-boundary-7MA4YWxkTrZu0gW';
export const extract = (token: string, pdf: Uint8Array, mode?: string, headers: Record<string, string> = {}) =>
  post(
    token,
    multipartBody(BOUNDARY, [pdfPart(pdf), ...(mode === undefined ? [] : [{ name: 'mode', data: mode }])]),
    `multipart/form-data; boundary=${BOUNDARY}`,
    headers,
  );

export const balance = (projectId: string) => svc.botBalance(projectId);

export const words = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFC')
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** Registers the file's hooks: the group's service for its tests, closed after them. */
export function useExtractService(): void {
  beforeAll(async () => {
    svc = await sharedService();
  });
  afterAll(async () => svc?.close());
}
