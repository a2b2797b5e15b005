import { wireCreditLedger } from '#shared/credits/index.ts';
import { wireExtract } from '#shared/extract/index.ts';
import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { routes } from '#shared/contract/routes.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { ocrFromSettings } from '#shared/pdf/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { pdfOpenerFromConfig } from '#functions/_wiring/untrusted-pdf.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('extract');
const { cfg, logger, metrics, table } = platform;
const lockSeconds = (routes.find((r) => r.fn === 'extract')?.timeoutSeconds ?? 120) + 10;

/** `POST /api/v1/ai/extract`: a PDF's text (text layer, OCR for scanned pages), 1 bot credit, refunded on failure. */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: wireBotsApiAuth(platform),
  idempotency: idempotencyOnDynamo(table, logger, lockSeconds),
}).handler(
  wireExtract(platform, {
    credits: wireCreditLedger(platform),
    // In-process on AWS; in a sandbox thread locally (UNTRUSTED_PARSING).
    openPdf: pdfOpenerFromConfig(cfg),
    ocr: ocrFromSettings(platform, metrics),
  }),
);
