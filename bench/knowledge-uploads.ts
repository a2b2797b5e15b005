/**
 * Browser uploads of knowledge files and OCR in ingestion (issue 17), against the whole local service:
 * - a 20 MB, 200-page text PDF: upload URL issued → form posted to the S3 stand-in → `ready` (target < 30 s);
 * - a 10-page scan read with tesseract.js: issued → `ready`, per page (target < 10 s per page);
 * - search latency over HTTP on the bot holding both indexes: per-response times of sequential
 *   `POST /api/v1/ai/search` (target p50 < 15 ms).
 * Usage: npx tsx bench/knowledge-uploads.ts [--rounds 1] [--queries 300]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startService } from '#local/service.ts';
import { mixedPdf } from '#test/support/pdf-fixtures.ts';
import { adminApi, machine, median, numberArg } from './lib/harness.ts';

const ROUNDS = numberArg('rounds', 1);
const QUERIES = numberArg('queries', 300);

/** 200 pages of typed text (a manual), padded to `size` bytes with an unreferenced stream of random bytes. */
async function textPdfOfSize(size: number, pages: number): Promise<Uint8Array> {
  const build = async (filler: number) => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 1; p <= pages; p++) {
      const page = doc.addPage([612, 792]);
      for (let l = 0; l < 30; l++)
        page.drawText(
          `Section ${p}.${l + 1}: maintenance step ${p * 100 + l} for pump model K${p % 17} and valve V${l}.`,
          {
            x: 50,
            y: 740 - l * 22,
            size: 11,
            font,
          },
        );
    }
    if (filler > 0) doc.context.register(doc.context.stream(randomBytes(filler)));
    return doc.save({ useObjectStreams: false });
  };
  const probe = await build(0);
  return build(Math.max(0, size - probe.length - 200));
}

const scanPages = Array.from({ length: 10 }, (_, i) => ({
  scan: `Inspection sheet ${i + 1}\nThe conveyor belt tension was checked on line ${i + 1}\nNo defects were found`,
}));

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-uploads-'));
const svc = await startService({
  port: 0,
  dataDir,
  logWorkerErrors: false,
  env: { BOT_RATE_LIMIT_PER_MINUTE: '100000' },
});
const admin = adminApi(svc);
try {
  const project = await admin('POST', '/projects', { companyId: 99, name: 'bench', monthlyBotCredits: 0 });
  const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
  const bot = await admin('POST', `/projects/${project.projectId}/bots`, { name: 'bench', instructions: 'x' });
  const filesPath = `/projects/${project.projectId}/bots/${bot.botId}/knowledge`;

  async function uploadAndWait(fileName: string, bytes: Uint8Array): Promise<{ ms: number; file: any }> {
    const started = performance.now();
    const form = await admin('POST', `${filesPath}/${fileName}/upload`, { contentType: 'application/pdf' });
    const body = new FormData();
    for (const [k, v] of Object.entries(form.fields as Record<string, string>)) body.append(k, v);
    body.append('file', new Blob([bytes], { type: 'application/pdf' }), fileName);
    const posted = await fetch(form.uploadUrl, { method: 'POST', body });
    if (!posted.ok) throw new Error(`upload refused: ${posted.status}`);
    for (;;) {
      const file = (await admin('GET', filesPath)).items.find((f: any) => f.fileName === fileName);
      if (file?.status !== 'processing') return { ms: performance.now() - started, file };
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const big = await textPdfOfSize(20 * 1024 * 1024, 200);
  const scan = await mixedPdf(scanPages);
  const bigMs: number[] = [];
  const scanMs: number[] = [];
  let scanFile: any;
  let bigFile: any;
  for (let round = 0; round < ROUNDS; round++) {
    const b = await uploadAndWait('manual-200-pages.pdf', big);
    bigMs.push(b.ms);
    bigFile = b.file;
    const s = await uploadAndWait('inspection-scan.pdf', scan);
    scanMs.push(s.ms);
    scanFile = s.file;
  }

  const queries = ['conveyor belt tension', 'pump model K7 valve', 'maintenance step 4512', 'no defects found line 3'];
  const times: number[] = [];
  for (let i = 0; i < QUERIES + 20; i++) {
    const t = performance.now();
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ botId: bot.botId, query: queries[i % queries.length], topK: 5 }),
    });
    await res.arrayBuffer();
    if (i >= 20) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;

  console.log(
    `machine: ${machine()}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`,
  );
  console.log(
    `20 MB / 200-page text PDF (${big.length} B): issued → ready median ${(median(bigMs) / 1000).toFixed(1)} s ` +
      `(${bigMs.map((m) => (m / 1000).toFixed(1)).join(', ')}); ${bigFile.status}, ${bigFile.chunks} chunks`,
  );
  console.log(
    `10-page scan (${scan.length} B, tesseract): issued → ready median ${(median(scanMs) / 1000).toFixed(1)} s, ` +
      `${(median(scanMs) / 10_000).toFixed(2)} s per page; ${scanFile.status}, ocrPages ${scanFile.ocrPages}, ${scanFile.chunks} chunks`,
  );
  console.log(
    `search over HTTP on that bot (${QUERIES} sequential): p50 ${pct(50).toFixed(2)} ms, p95 ${pct(95).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms`,
  );
} finally {
  await svc.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
