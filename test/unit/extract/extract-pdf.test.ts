import { describe, expect, it } from 'vitest';
import { MemoryCreditLedger } from '#test/support/fakes/memory-credit-ledger.ts';
import { NoBotCreditsError } from '#shared/credits/index.ts';
import { httpErrorFor } from '#shared/http/domain-errors.ts';
import {
  ExtractionFailedError,
  ExtractionTimeoutError,
  FileTooLargeError,
  InvalidFileError,
} from '#shared/extract/errors.ts';
import { makeExtractPdf, MAX_PDF_BYTES, type ExtractPdfDeps } from '#shared/extract/extract-pdf.ts';
import { uploadKey, type UploadStore } from '#shared/extract/uploads.ts';
import type { OcrEngine, OcrOptions } from '#shared/pdf/index.ts';
import {
  blankPdf,
  encryptedPdf,
  inflationBombPdf,
  invisibleTextPdf,
  scannedPdf,
  textPdf,
} from '#test/support/pdf-fixtures.ts';
import { ISSUE_BOMBS, pdfBomb } from '#test/support/pdf-bombs.ts';

class MemoryUploads implements UploadStore {
  readonly objects = new Map<string, Buffer>();
  reads = 0;
  async presignPost() {
    return { url: 'http://uploads.test/bucket', fields: {} };
  }
  async read(fileKey: string, maxBytes: number): Promise<Buffer | 'missing' | 'too-large'> {
    this.reads++;
    const object = this.objects.get(fileKey);
    if (!object) return 'missing';
    return object.length > maxBytes ? 'too-large' : object;
  }
  async delete(fileKey: string): Promise<void> {
    this.objects.delete(fileKey);
  }
}

const log = { warn: () => {}, error: () => {} };
const caller = { projectId: 'prj_a', monthlyBotCredits: 0 };
const soon = () => Date.now() + 30_000;
const ocrAnswering = (answer: OcrEngine['recognize']): OcrOptions => ({
  engine: { name: 'fake', concurrency: 1, recognize: answer },
});

function setup(balance: number, extra: Partial<ExtractPdfDeps> = {}) {
  const credits = new MemoryCreditLedger(balance);
  const uploads = new MemoryUploads();
  const extractPdf = makeExtractPdf({ credits, uploads, log, ...extra });
  return { credits, uploads, extractPdf };
}

describe('extract use case: charging', () => {
  it('charges once and settles when text comes out', async () => {
    const { credits, extractPdf } = setup(2);
    const pages = await extractPdf({ caller, source: { bytes: await textPdf(['Hello there']) }, deadline: soon() });
    expect(pages).toEqual([{ page: 1, text: 'Hello there', ocr: false }]);
    expect({
      balance: credits.balance,
      charges: credits.charges,
      settles: credits.settles,
      refunds: credits.refunds,
    }).toEqual({ balance: 1, charges: 1, settles: 1, refunds: 0 });
  });

  it('refunds exactly once when nothing is readable (502 with the reason)', async () => {
    const { credits, extractPdf } = setup(2);
    const error = await extractPdf({ caller, source: { bytes: await blankPdf() }, deadline: soon() }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(httpErrorFor(error).status).toBe(502);
    expect(error.message).toMatch(/blank.*refunded/);
    expect({ balance: credits.balance, refunds: credits.refunds, open: credits.open.size }).toEqual({
      balance: 2,
      refunds: 1,
      open: 0,
    });
  });

  it('refunds when the OCR engine fails (502)', async () => {
    const { credits, extractPdf } = setup(1, {
      ocr: ocrAnswering(async () => {
        throw new Error('ThrottlingException');
      }),
    });
    const error = await extractPdf({
      caller,
      source: { bytes: await scannedPdf('Scanned words here') },
      deadline: soon(),
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(error.message).toMatch(/OCR/);
    expect(error.message).not.toMatch(/Throttling/);
    expect({ balance: credits.balance, refunds: credits.refunds }).toEqual({ balance: 1, refunds: 1 });
  });

  it('refunds and stops at the deadline (504)', async () => {
    const { credits, extractPdf } = setup(1, {
      ocr: ocrAnswering(
        // As the port says: rejects once the signal aborts, also when it aborted before the page reached the engine
        // (rendering and preparing a page can take the whole 1.5 s on a loaded machine).
        (_, signal) =>
          new Promise((_, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason));
          }),
      ),
    });
    const bytes = await scannedPdf('Scanned words here');
    const started = Date.now();
    const error = await extractPdf({ caller, source: { bytes }, deadline: Date.now() + 1_500 }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionTimeoutError);
    expect(httpErrorFor(error).status).toBe(504);
    expect(error.message).toMatch(/refunded/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect({ balance: credits.balance, refunds: credits.refunds }).toEqual({ balance: 1, refunds: 1 });
  });

  it('refunds on an unexpected failure after the charge and lets it through (hidden 500)', async () => {
    const broken = {
      get engine(): OcrEngine {
        throw new TypeError('bug in the OCR wiring');
      },
    } as OcrOptions;
    const { credits, extractPdf } = setup(1, { ocr: broken });
    const error = await extractPdf({
      caller,
      source: { bytes: await scannedPdf('Scanned words here') },
      deadline: soon(),
    }).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect({ balance: credits.balance, refunds: credits.refunds }).toEqual({ balance: 1, refunds: 1 });
  });

  it('still answers the failure when the refund itself fails (the sweeper refunds later)', async () => {
    const errors: string[] = [];
    const { credits, extractPdf } = setup(1, { log: { warn: () => {}, error: (m) => errors.push(m) } });
    credits.failRefund = true;
    const error = await extractPdf({ caller, source: { bytes: await blankPdf() }, deadline: soon() }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(errors).toEqual(['extract refund failed; left to the sweeper']);
    expect(credits.open.size).toBe(1);
  });

  it('answers 402 without charging when the balance is spent', async () => {
    const { credits, extractPdf } = setup(0);
    await expect(
      extractPdf({ caller, source: { bytes: await textPdf(['x y z']) }, deadline: soon() }),
    ).rejects.toBeInstanceOf(NoBotCreditsError);
    expect(credits.charges).toBe(0);
  });

  it('refuses unreadable files before charging', async () => {
    const { credits, extractPdf } = setup(3);
    const encrypted = await extractPdf({ caller, source: { bytes: await encryptedPdf() }, deadline: soon() }).catch(
      (e) => e,
    );
    expect(encrypted).toBeInstanceOf(InvalidFileError);
    expect(encrypted.details).toEqual([expect.objectContaining({ path: 'file', code: 'encrypted' })]);
    const notPdf = await extractPdf({ caller, source: { bytes: Buffer.from('GIF89a') }, deadline: soon() }).catch(
      (e) => e,
    );
    expect(notPdf.details[0].code).toBe('not_pdf');
    await expect(
      extractPdf({ caller, source: { bytes: new Uint8Array(MAX_PDF_BYTES + 1) }, deadline: soon() }),
    ).rejects.toBeInstanceOf(FileTooLargeError);
    expect(credits.charges).toBe(0);
  });
});

describe('extract use case: size limits', () => {
  it('answers 502 EXTRACTION_FAILED, refunded once, for a page of 12 MB of invisible text (never a 12 MB answer)', async () => {
    const { credits, extractPdf } = setup(2);
    const error = await extractPdf({
      caller,
      source: { bytes: await invisibleTextPdf(12_000_000) },
      deadline: soon(),
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(httpErrorFor(error).status).toBe(502);
    expect(error.message).toMatch(/more than 1 MB of text.*The credit was refunded\./);
    expect({ balance: credits.balance, charges: credits.charges, refunds: credits.refunds }).toEqual({
      balance: 2,
      charges: 1,
      refunds: 1,
    });
  });

  it.each([
    { name: '64 MB of drawing operators', make: () => inflationBombPdf(64 * 1024 * 1024) },
    ...[...ISSUE_BOMBS, 'lzw', 'object-stream', 'image-flate'].map((name) => ({
      name,
      make: () => pdfBomb(name).make(),
    })),
  ])('refuses $name with 400 VALIDATION_ERROR, nothing charged', async ({ make }) => {
    const { credits, extractPdf } = setup(2);
    const error = await extractPdf({ caller, source: { bytes: await make() }, deadline: soon() }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidFileError);
    expect(httpErrorFor(error).status).toBe(400);
    expect(error.details).toEqual([expect.objectContaining({ path: 'file', code: 'too_large' })]);
    // Refused when opening, or while reading a page (charged, then refunded): the balance is whole either way.
    expect(credits.balance).toBe(2);
    expect(credits.refunds).toBe(credits.charges);
  });
});

describe('extract use case: uploads', () => {
  it("reads the caller's own upload, then deletes it", async () => {
    const { credits, uploads, extractPdf } = setup(1);
    const key = uploadKey('prj_a', 'upl_abcdefghij0123456789');
    uploads.objects.set(key, Buffer.from(await textPdf(['From the bucket'])));
    const pages = await extractPdf({ caller, source: { fileKey: key }, deadline: soon() });
    expect(pages[0]!.text).toBe('From the bucket');
    expect(uploads.objects.has(key)).toBe(false);
    expect(credits.balance).toBe(0);
  });

  it("refuses another project's key without reading it, a missing key, and a key of the wrong shape", async () => {
    const { credits, uploads, extractPdf } = setup(3);
    const theirs = uploadKey('prj_b', 'upl_abcdefghij0123456789');
    uploads.objects.set(theirs, Buffer.from(await textPdf(['Not yours'])));
    for (const fileKey of [
      theirs,
      uploadKey('prj_a', 'upl_00000000000000000000'),
      'uploads/extract/prj_a/../prj_b/upl_abcdefghij0123456789.pdf',
      'bots/prj_a/index.json',
    ]) {
      const error = await extractPdf({ caller, source: { fileKey }, deadline: soon() }).catch((e) => e);
      expect(error, fileKey).toBeInstanceOf(InvalidFileError);
      expect(error.details[0]).toMatchObject({ path: 'fileKey', code: 'not_found' });
    }
    expect(uploads.reads).toBe(1);
    expect(credits.charges).toBe(0);
  });

  it('answers FILE_TOO_LARGE for an upload above 25 MB', async () => {
    const { uploads, extractPdf } = setup(3);
    const key = uploadKey('prj_a', 'upl_abcdefghij0123456789');
    uploads.objects.set(key, Buffer.alloc(MAX_PDF_BYTES + 1));
    await expect(extractPdf({ caller, source: { fileKey: key }, deadline: soon() })).rejects.toBeInstanceOf(
      FileTooLargeError,
    );
  });
});
