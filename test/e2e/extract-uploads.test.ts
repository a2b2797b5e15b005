import { describe, expect, it } from 'vitest';
import { MAX_PDF_BYTES, textPdf } from '#test/support/pdf-fixtures.ts';
import { svc, post, extract, balance, useExtractService } from './extract-support.ts';

/** POST /api/v1/ai/extract: what a file is charged, and files uploaded first (by presigned URL) then extracted by key. */
useExtractService();

describe('POST /api/v1/ai/extract: charging', () => {
  it('charges min(N, balance) of N concurrent requests and never goes below zero', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const pdf = await textPdf(['Concurrent request']);
    const results = await Promise.all(Array.from({ length: 5 }, () => extract(token, pdf)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 402, 402, 402]);
    expect(await balance(projectId)).toBe(0);
  });

  it('replays an Idempotency-Key without charging again', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const pdf = await textPdf(['Idempotent extraction']);
    const first = await extract(token, pdf, undefined, { 'idempotency-key': 'extract-key-1' });
    const second = await extract(token, pdf, undefined, { 'idempotency-key': 'extract-key-1' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await balance(projectId)).toBe(4);
  });
});

describe('POST /api/v1/ai/extract/uploads then extract by fileKey', () => {
  async function createUpload(token: string) {
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as {
      uploadUrl: string;
      method: string;
      fields: Record<string, string>;
      fileKey: string;
      expiresAt: string;
      maxBytes: number;
    };
  }

  async function uploadTo(upload: Awaited<ReturnType<typeof createUpload>>, pdf: Uint8Array) {
    const form = new FormData();
    for (const [k, v] of Object.entries(upload.fields)) form.set(k, v);
    form.set('file', new Blob([pdf], { type: 'application/pdf' }), 'doc.pdf');
    const res = await fetch(upload.uploadUrl, { method: 'POST', body: form });
    expect(res.status).toBeLessThan(300);
  }

  it("extracts an uploaded PDF once, and refuses another project's key", async () => {
    const owner = await svc.newProject({ monthlyBotCredits: 3 });
    const other = await svc.newProject({ monthlyBotCredits: 3 });
    const upload = await createUpload(owner.token);
    expect(upload.method).toBe('POST');
    expect(upload.maxBytes).toBe(MAX_PDF_BYTES);
    expect(upload.fileKey).toMatch(new RegExp(`^uploads/extract/${owner.projectId}/upl_[a-z0-9]{20}\\.pdf$`));
    expect(Date.parse(upload.expiresAt)).toBeGreaterThan(Date.now());
    const policy = JSON.parse(Buffer.from(upload.fields.Policy ?? upload.fields.policy!, 'base64').toString('utf8'));
    expect(policy.conditions).toContainEqual(['content-length-range', 1, MAX_PDF_BYTES]);
    await uploadTo(upload, await textPdf(['Uploaded through S3']));

    const stolen = await post(other.token, JSON.stringify({ fileKey: upload.fileKey }), 'application/json');
    expect(stolen.status).toBe(400);
    expect(stolen.body.details[0]).toMatchObject({ path: 'fileKey', code: 'not_found' });
    expect(await balance(other.projectId)).toBe(3);

    const res = await post(owner.token, JSON.stringify({ fileKey: upload.fileKey, mode: 'pages' }), 'application/json');
    expect(res.status).toBe(200);
    expect(res.body.dados.pages).toEqual([{ page: 1, text: 'Uploaded through S3', ocr: false }]);
    expect(await balance(owner.projectId)).toBe(2);

    const again = await post(owner.token, JSON.stringify({ fileKey: upload.fileKey }), 'application/json');
    expect(again.status).toBe(400);
    expect(await balance(owner.projectId)).toBe(2);
  });

  it('validates the JSON form like the multipart one', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const upload = await createUpload(token);
    await uploadTo(upload, Buffer.from('not a pdf at all'));
    const notPdf = await post(token, JSON.stringify({ fileKey: upload.fileKey }), 'application/json');
    expect(notPdf.status).toBe(400);
    expect(notPdf.body.details[0]).toMatchObject({ path: 'file', code: 'not_pdf' });

    const badMode = await post(token, JSON.stringify({ fileKey: upload.fileKey, mode: 'xml' }), 'application/json');
    expect(badMode.status).toBe(400);
    expect(badMode.body.details[0].path).toBe('mode');

    const unknownField = await post(token, JSON.stringify({ fileKey: upload.fileKey, botId: 'x' }), 'application/json');
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.details[0]).toMatchObject({ path: 'botId', code: 'unrecognized_keys' });

    const invalidJson = await post(token, '{"fileKey":', 'application/json');
    expect(invalidJson.status).toBe(400);
    expect(invalidJson.body.error).toBe('INVALID_JSON');
    expect(await balance(projectId)).toBe(3);
  });
});
