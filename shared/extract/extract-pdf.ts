import { makeCharging, type CreditLedger } from '../credits/index.ts';
import {
  countLetters,
  describeUnreadable,
  OcrEngineError,
  openPdf,
  PdfError,
  PdfTooLargeError,
  type OcrOptions,
  type OpenPdf,
  type PdfOpener,
  type PdfPage,
} from '../pdf/index.ts';
import { ExtractionFailedError, ExtractionTimeoutError, FileTooLargeError, InvalidFileError } from './errors.ts';
import { isProjectUploadKey, type UploadStore } from './uploads.ts';

/** The contract's file limit: 25 MB. */
export const MAX_PDF_BYTES = 26_214_400;

/** The PDF itself (multipart), or the key of an upload made with `POST /api/v1/ai/extract/uploads`. */
export type ExtractSource = { bytes: Uint8Array } | { fileKey: string };

export interface ExtractInput {
  caller: { projectId: string; monthlyBotCredits: number };
  source: ExtractSource;
  /** Epoch ms by which the pages must be ready; the work is aborted then (504, refunded). */
  deadline: number;
}

export interface ExtractLog {
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

export interface ExtractPdfDeps {
  credits: CreditLedger;
  /** OCR for pages without a text layer; without it such pages count as unreadable. */
  ocr?: OcrOptions;
  /** Needed for `fileKey` sources. */
  uploads?: UploadStore;
  /** How PDFs are opened: in this thread by default, or in a sandbox thread. */
  openPdf?: PdfOpener;
  log: ExtractLog;
  now?: () => number;
  newChargeId?: () => string;
}

/**
 * `POST /api/v1/ai/extract`, after auth, rate limit and body parsing, for both ways the file arrives:
 * 1. get the bytes: the multipart file, or the caller's own upload (400 for another project's key or a missing one,
 *    400 FILE_TOO_LARGE above 25 MB);
 * 2. validate: `%PDF-` at byte 0, then the PDF's structure parses, needs no password, and what opening decodes
 *    (cross-reference and object streams) stays within the decode limits (400 VALIDATION_ERROR);
 * 3. charge 1 bot credit; a spent balance fails the conditional charge: 402 ERR_NO_BOT_CREDITS, nothing charged;
 * 4. read every page: text layer, else render + OCR;
 * 5. nothing readable anywhere, or more text than an answer can carry (5 MB): 502 EXTRACTION_FAILED saying why;
 *    a page whose decoding passes a ceiling (a stream, an image, the page's total, its time; see
 *    docs/reference/limits.md) or that turns out damaged: 400 VALIDATION_ERROR, as if refused before the charge;
 * 6. settle; on any failure after the charge (400, 502, 504, unexpected 500), refund exactly once: refused work is
 *    never charged.
 */
export function makeExtractPdf(deps: ExtractPdfDeps) {
  const now = deps.now ?? Date.now;
  const chargeCredit = makeCharging({
    credits: deps.credits,
    log: deps.log,
    now,
    ...(deps.newChargeId ? { newChargeId: deps.newChargeId } : {}),
  });

  return async function extractPdf(input: ExtractInput): Promise<PdfPage[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DeadlineReached()), Math.max(0, input.deadline - now()));
    const signal = controller.signal;
    try {
      const bytes = await fileBytes(input, signal);
      const pdf = await open(bytes, signal);
      try {
        const account = { projectId: input.caller.projectId, monthlyAllowance: input.caller.monthlyBotCredits };
        const charge = await chargeCredit(account, 'extract');

        let pages: PdfPage[];
        try {
          ({ pages } = await pdf.extract({ ...(deps.ocr ? { ocr: deps.ocr } : {}), signal }));
          if (!pages.some((p) => countLetters(p.text, 1) > 0))
            throw new ExtractionFailedError(describeUnreadable(pages));
        } catch (error) {
          await charge.refund(error);
          throw afterCharge(error, signal);
        }
        await charge.settle();
        if ('fileKey' in input.source) await forget(input.source.fileKey);
        return pages;
      } finally {
        await pdf.close().catch(() => undefined);
      }
    } catch (error) {
      if (signal.aborted && !(error instanceof ExtractionTimeoutError) && !(error instanceof ExtractionFailedError)) {
        // Ran out of time before the charge (reading an upload, parsing a huge file): nothing to refund.
        if (error === signal.reason) throw new ExtractionTimeoutError(false);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  async function fileBytes(input: ExtractInput, signal: AbortSignal): Promise<Uint8Array> {
    const source = input.source;
    if ('bytes' in source) {
      if (source.bytes.byteLength > MAX_PDF_BYTES) throw new FileTooLargeError(MAX_PDF_BYTES);
      return source.bytes;
    }
    const unknown = () =>
      new InvalidFileError(
        'No upload with this fileKey exists for this project (uploads expire).',
        'fileKey',
        'not_found',
      );
    if (!isProjectUploadKey(source.fileKey, input.caller.projectId) || !deps.uploads) throw unknown();
    const read = await deps.uploads.read(source.fileKey, MAX_PDF_BYTES, signal);
    if (read === 'missing') throw unknown();
    if (read === 'too-large') throw new FileTooLargeError(MAX_PDF_BYTES);
    return read;
  }

  async function open(bytes: Uint8Array, signal: AbortSignal): Promise<OpenPdf> {
    try {
      return await (deps.openPdf ?? openPdf)(bytes, { signal });
    } catch (error) {
      if (error instanceof PdfError) throw new InvalidFileError(error.message, 'file', error.reason.replace('-', '_'));
      throw error;
    }
  }

  async function forget(fileKey: string): Promise<void> {
    try {
      await deps.uploads?.delete(fileKey);
    } catch (cause) {
      deps.log.warn('extract upload not deleted; the bucket lifecycle will expire it', {
        fileKey,
        cause: String(cause),
      });
    }
  }
}

/** The contract's answer for a failure once the credit is charged (the refund already happened). */
function afterCharge(error: unknown, signal: AbortSignal): unknown {
  if (error instanceof ExtractionFailedError) return error;
  if (signal.aborted && error === signal.reason) return new ExtractionTimeoutError(true);
  // Decoding a page passed a ceiling (docs/reference/limits.md): the file is refused as at opening, 400, refunded.
  if (error instanceof PdfTooLargeError && error.decoding)
    return new InvalidFileError(error.message, 'file', 'too_large', error);
  // The file was valid and is read; its text is more than one answer can carry: the extraction failed (refunded).
  if (error instanceof PdfTooLargeError) return new ExtractionFailedError(error.message, error);
  if (error instanceof PdfError) return new InvalidFileError(error.message, 'file', error.reason);
  if (error instanceof OcrEngineError)
    return new ExtractionFailedError('Text recognition (OCR) failed for a scanned page; try again later.', error);
  return error;
}

/** The reason the deadline controller aborts with. */
class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
    this.name = 'DeadlineReached';
  }
}
