import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { s3ExtractUploadStoreOnFirstUse } from '#shared/extract/adapters/lazy-s3-extract-upload-store.ts';
import { makeExtractPdf } from '#shared/extract/extract-pdf.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import type { PdfPage } from '#shared/pdf/index.ts';
import { routes } from '#shared/contract/routes.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { idempotencyOnDynamo } from '#functions/_wiring/idempotency.ts';
import { meteredCreditLedger } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { ocrFromConfig } from '#functions/_wiring/ocr.ts';
import { pdfOpenerFromConfig } from '#functions/_wiring/untrusted-pdf.ts';
import { readExtractRequest, type ExtractMode } from '#shared/extract/api/extract-request.ts';

/** Time kept between the end of extraction and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 3_000;

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('extract');
const metrics = new PowertoolsMetrics('extract');
const table = dynamoTable(cfg);
const lockSeconds = (routes.find((r) => r.fn === 'extract')?.timeoutSeconds ?? 120) + 10;
const extractPdf = makeExtractPdf({
  credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
  // In-process on AWS; in a sandbox thread locally (UNTRUSTED_PARSING).
  openPdf: pdfOpenerFromConfig(cfg),
  ocr: ocrFromConfig(cfg, metrics),
  ...(cfg.BUCKET_TRANSFER ? { uploads: s3ExtractUploadStoreOnFirstUse(cfg, cfg.BUCKET_TRANSFER) } : {}),
  log: logger,
});

/** `POST /api/v1/ai/extract`: a PDF's text (text layer, OCR for scanned pages), 1 bot credit, refunded on failure. */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  idempotency: idempotencyOnDynamo(table, logger, lockSeconds),
}).handler(async (event, context) => {
  const request = await readExtractRequest(event);
  const started = Date.now();
  const pages = await extractPdf({
    caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
    source: request.source,
    deadline: started + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS,
  });
  logger.info('extract', {
    pages: pages.length,
    ocrPages: pages.filter((p) => p.ocr).length,
    ms: Date.now() - started,
  });
  return json(200, responseBody(pages, request.mode));
});

/** `text`: the readable pages' text joined by a blank line; `pages`: every page with its `ocr` flag, in `dados`. */
function responseBody(pages: PdfPage[], mode: ExtractMode): Record<string, unknown> {
  if (mode === 'pages')
    return { success: true, dados: { pages: pages.map(({ page, text, ocr }) => ({ page, text, ocr })) } };
  return {
    success: true,
    result: pages
      .filter((p) => p.text.length > 0)
      .map((p) => p.text)
      .join('\n\n'),
  };
}
