import { s3ObjectStoreOnFirstUse, s3UploadInboxOnFirstUse } from '#shared/kernel/aws/lazy-s3-object-store.ts';
import { wireIngestWorker } from '#shared/knowledge/index.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { ocrFromSettings } from '#shared/pdf/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { pdfOpenerFromConfig } from '#functions/_wiring/untrusted-pdf.ts';
import { documentReaderFromConfig } from '#functions/_wiring/untrusted-text.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('ingest');
const { cfg, metrics } = platform;

/**
 * The `ingest` queue worker: uploads and deletes' merges, and browser uploads as S3 reports them, made searchable
 * (shared/knowledge/api/ingest-worker.ts).
 */
export const handler = wireIngestWorker(platform, {
  objectsOn: (bucket) => s3ObjectStoreOnFirstUse(cfg, bucket),
  inboxOn: (bucket) => s3UploadInboxOnFirstUse(cfg, bucket),
  ocr: ocrFromSettings(platform, metrics),
  // PDFs, HTML and Markdown: in-process on AWS, in a sandbox thread locally (UNTRUSTED_PARSING).
  openPdf: pdfOpenerFromConfig(cfg),
  readText: documentReaderFromConfig(cfg),
  embeddings: embeddingsFromSettings(cfg),
});
