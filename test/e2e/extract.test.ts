import { describe, expect, it } from 'vitest';
import {
  blankPdf,
  encryptedPdf,
  inflationBombPdf,
  invisibleTextPdf,
  MAX_PDF_BYTES,
  mixedPdf,
  noisePdf,
  pdfOfSize,
  scannedPdf,
  textPdf,
  truncatedPdf,
} from '#test/support/pdf-fixtures.ts';
import {
  svc,
  multipartBody,
  pdfPart,
  post,
  BOUNDARY,
  extract,
  balance,
  words,
  useExtractService,
} from './extract-support.ts';

/**
 * POST /api/v1/ai/extract through the local runner, with PDFs built by the tests: the words that come back, the
 * status, and the month's balance after each request (1 credit per file, refunded when nothing is readable).
 */
useExtractService();

describe('POST /api/v1/ai/extract: what comes back', () => {
  it('reads a text PDF from its text layer; pages joined by a blank line; 1 credit', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const pdf = await textPdf([
      'Relatório trimestral de vendas\nReceita cresceu 12%',
      'Segunda página: ação e coração',
    ]);
    const res = await extract(token, pdf);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      result: 'Relatório trimestral de vendas\nReceita cresceu 12%\n\nSegunda página: ação e coração',
    });
    // The route is rate limited (60 a minute by default; the bundles group raises it for its knowledge searches).
    const limit = Number(res.headers.get('ratelimit-limit'));
    expect(limit).toBeGreaterThan(0);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(limit);
    expect(await balance(projectId)).toBe(4);

    const pages = await extract(token, pdf, 'pages');
    expect(pages.status).toBe(200);
    expect(pages.body).toEqual({
      success: true,
      dados: {
        pages: [
          { page: 1, text: 'Relatório trimestral de vendas\nReceita cresceu 12%', ocr: false },
          { page: 2, text: 'Segunda página: ação e coração', ocr: false },
        ],
      },
    });
    expect(await balance(projectId)).toBe(3);
  });

  it('reads a scanned page (an image of text, no text layer) with OCR', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const sentence = 'The quarterly report shows strong growth\nAtenção: o relatório está pronto para revisão';
    const res = await extract(token, await scannedPdf(sentence), 'pages');
    expect(res.status).toBe(200);
    const [page] = res.body.dados.pages;
    expect(page).toMatchObject({ page: 1, ocr: true });
    const found = new Set(words(page.text));
    const expected = words(sentence);
    const missing = expected.filter((w) => !found.has(w));
    expect(missing.length / expected.length).toBeLessThanOrEqual(0.1);
    expect(await balance(projectId)).toBe(1);
  });

  it('reads a mixed PDF page by page: text layer, OCR, blank', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const pdf = await mixedPdf([
      { text: 'Typed introduction about invoices and payments' },
      { scan: 'Scanned appendix with signatures' },
      { blank: true },
    ]);
    const res = await extract(token, pdf, 'pages');
    expect(res.status).toBe(200);
    const pages = res.body.dados.pages;
    expect(pages.map((p: any) => [p.page, p.ocr])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(pages[0].text).toBe('Typed introduction about invoices and payments');
    expect(words(pages[1].text)).toEqual(expect.arrayContaining(['scanned', 'appendix', 'signatures']));
    expect(pages[2].text).toBe('');
    expect(await balance(projectId)).toBe(1);
  });
});

describe('POST /api/v1/ai/extract: nothing readable (502, refunded)', () => {
  it('answers EXTRACTION_FAILED for a blank PDF and refunds the credit', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const res = await extract(token, await blankPdf());
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, error: 'EXTRACTION_FAILED', requestId: expect.any(String) });
    expect(res.body.message).toMatch(/blank/);
    expect(res.body.message).toMatch(/refunded/);
    expect(await balance(projectId)).toBe(3);
  });

  it('answers EXTRACTION_FAILED for a page of noise and refunds the credit', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const res = await extract(token, await noisePdf());
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('EXTRACTION_FAILED');
    expect(res.body.message).toMatch(/specks|picture/);
    expect(await balance(projectId)).toBe(3);
  });
});

describe('POST /api/v1/ai/extract: files that expand beyond the limits', () => {
  it('answers 502 EXTRACTION_FAILED, refunded, for 12 MB of text in an invisible font (was 200 with 12 MB)', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const bomb = await invisibleTextPdf(12_000_000);
    const res = await extract(token, bomb);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, error: 'EXTRACTION_FAILED' });
    expect(res.body.message).toMatch(/more than 1 MB of text/);
    expect(await balance(projectId)).toBe(3);
  }, 60_000);

  it('refuses a stream that decompresses beyond 16 MB with 400 VALIDATION_ERROR, nothing charged', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const res = await extract(token, await inflationBombPdf(64 * 1024 * 1024));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'file', code: 'too_large' })]);
    expect(await balance(projectId)).toBe(3);
  });
});

describe('POST /api/v1/ai/extract: refused before any charge', () => {
  it('refuses encrypted, truncated and non-PDF files with VALIDATION_ERROR', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const encrypted = await extract(token, await encryptedPdf());
    expect(encrypted.status).toBe(400);
    expect(encrypted.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'file', code: 'encrypted' }] });
    expect(encrypted.body.message).toMatch(/password/);

    const truncated = await extract(token, await truncatedPdf());
    expect(truncated.status).toBe(400);
    expect(truncated.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ path: 'file', code: 'corrupt' }] });

    const garbage = await extract(token, Buffer.from('%PDF-1.7\nthis is not really a pdf\n%%EOF\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.body.details[0]).toMatchObject({ path: 'file', code: 'corrupt' });

    const notPdf = await extract(token, Buffer.from('PK\u0003\u0004 a zip file, not a PDF'));
    expect(notPdf.status).toBe(400);
    expect(notPdf.body.details[0]).toMatchObject({ path: 'file', code: 'not_pdf' });
    expect(await balance(projectId)).toBe(3);
  });

  it('refuses a body that is not multipart, a form without file, and an unknown mode', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const plain = await post(token, 'just text', 'text/plain');
    expect(plain.status).toBe(400);
    expect(plain.body.error).toBe('VALIDATION_ERROR');

    const noFile = await post(
      token,
      multipartBody(BOUNDARY, [{ name: 'mode', data: 'text' }]),
      `multipart/form-data; boundary=${BOUNDARY}`,
    );
    expect(noFile.status).toBe(400);
    expect(noFile.body.details).toEqual([expect.objectContaining({ path: 'file' })]);

    const fileAsText = await post(
      token,
      multipartBody(BOUNDARY, [{ name: 'file', data: '%PDF-1.7 typed into a text field' }]),
      `multipart/form-data; boundary=${BOUNDARY}`,
    );
    expect(fileAsText.status).toBe(400);
    expect(fileAsText.body.details[0].path).toBe('file');

    const badMode = await extract(token, await textPdf(['fine']), 'markdown');
    expect(badMode.status).toBe(400);
    expect(badMode.body.details).toEqual([expect.objectContaining({ path: 'mode', code: 'invalid_value' })]);

    const unknownAndMissing = await post(
      token,
      multipartBody(BOUNDARY, [{ name: 'botId', data: 'bot_x' }]),
      `multipart/form-data; boundary=${BOUNDARY}`,
    );
    expect(unknownAndMissing.status).toBe(400);
    expect(unknownAndMissing.body.details.map((d: any) => d.path).sort()).toEqual(['botId', 'file']);

    const noBoundary = await post(token, 'whatever', 'multipart/form-data');
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error).toBe('VALIDATION_ERROR');
    expect(await balance(projectId)).toBe(3);
  });

  it('answers FILE_TOO_LARGE for 25 MB + 1 byte and accepts exactly 25 MB', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const over = await extract(token, await pdfOfSize(MAX_PDF_BYTES + 1));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ success: false, error: 'FILE_TOO_LARGE' });
    expect(await balance(projectId)).toBe(3);

    const exact = await pdfOfSize(MAX_PDF_BYTES, 'Exactly twenty five megabytes');
    expect(exact.length).toBe(MAX_PDF_BYTES);
    const ok = await extract(token, exact);
    expect(ok.status).toBe(200);
    expect(ok.body.result).toBe('Exactly twenty five megabytes');
    expect(await balance(projectId)).toBe(2);
  });

  it('answers 402 ERR_NO_BOT_CREDITS when the balance is spent, charging nothing', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 0 });
    const res = await extract(token, await textPdf(['Some text']));
    expect(res.status).toBe(402);
    expect(res.body.error).toBe('ERR_NO_BOT_CREDITS');
    expect(await balance(projectId)).toBe(0);
  });

  it('authenticates before anything else', async () => {
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBe('ERR_API_TOKEN_NOT_PROVIDED');
  });
});

describe('POST /api/v1/ai/extract: multipart framing', () => {
  it('accepts odd but valid boundaries: underscores, quotes, no space after ";", parts in any order', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const pdf = await textPdf(['Boundary test passed']);
    const cases: [string, string][] = [
      ['__X_boundary__', 'multipart/form-data;boundary=__X_boundary__'],
      ["quoted 'with' spaces=and:colons", `multipart/form-data; boundary="quoted 'with' spaces=and:colons"`],
      ['----=_Part_17_1234.5678', 'Multipart/Form-Data;charset=utf-8;boundary="----=_Part_17_1234.5678"'],
    ];
    for (const [boundary, contentType] of cases) {
      const body = multipartBody(boundary, [{ name: 'mode', data: 'pages' }, pdfPart(pdf)]);
      const res = await post(token, body, contentType);
      expect(res.status, contentType).toBe(200);
      expect(res.body.dados.pages[0].text).toBe('Boundary test passed');
    }
    expect(await balance(projectId)).toBe(2);
  });
});
