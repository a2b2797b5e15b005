import type { S3Client } from '@aws-sdk/client-s3';
import type { CreditLedger } from '../credits/index.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { Platform } from '../kernel/platform.ts';
import type { OcrOptions, PdfOpener } from '../pdf/index.ts';
import { s3ExtractUploadStoreOnFirstUse } from './adapters/lazy-s3-extract-upload-store.ts';
import { createUploadHandler } from './api/upload-route.ts';
import { extractHandler } from './api/extract-route.ts';
import { makeExtractPdf, MAX_PDF_BYTES } from './extract-pdf.ts';
import { makeCreateUpload, type UploadStore } from './uploads.ts';

/** How long an upload slot stays usable. */
const UPLOAD_EXPIRES_SECONDS = 900;

/**
 * `POST /api/v1/ai/extract`: charged through `credits`, PDFs opened by `openPdf` (in-process on AWS, in a sandbox
 * thread locally) and scanned pages read by `ocr` (none: they count as unreadable). Uploads are read from the
 * transfer bucket, whose S3 client loads on the first `{ fileKey }` request only.
 */
export function wireExtract(
  platform: Pick<Platform, 'cfg' | 'logger'>,
  deps: { credits: CreditLedger; openPdf: PdfOpener; ocr: OcrOptions | undefined },
) {
  const { cfg, logger } = platform;
  const extractPdf = makeExtractPdf({
    credits: deps.credits,
    openPdf: deps.openPdf,
    ocr: deps.ocr,
    ...(cfg.BUCKET_TRANSFER ? { uploads: s3ExtractUploadStoreOnFirstUse(cfg, cfg.BUCKET_TRANSFER) } : {}),
    log: logger,
  });
  return extractHandler({ extractPdf, log: logger });
}

/**
 * `POST /api/v1/ai/extract/uploads`: upload slots in the transfer bucket (required), on the function's S3 client. It
 * presigns on every request, so its S3 adapter loads at cold start (awaited here), not on first use.
 */
export async function wireExtractUploads(platform: Pick<Platform, 'cfg'>, deps: { s3: S3Client }) {
  const { cfg } = platform;
  const createUpload = makeCreateUpload({
    uploads: await extractUploadStoreOnS3(deps.s3, requiredSetting(cfg, 'BUCKET_TRANSFER')),
    maxBytes: MAX_PDF_BYTES,
    expiresInSeconds: UPLOAD_EXPIRES_SECONDS,
  });
  return createUploadHandler(createUpload);
}

/**
 * The upload store on S3 with the given client. Loaded with `import()`: the extract function loads the same module
 * on its first `{ fileKey }` request only, and a static import here would put it in that function's cold start.
 */
export async function extractUploadStoreOnS3(s3: S3Client, bucket: string): Promise<UploadStore> {
  const { S3ExtractUploadStore } = await import('./adapters/s3-extract-upload-store.ts');
  return new S3ExtractUploadStore(s3, bucket);
}
