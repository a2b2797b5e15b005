/**
 * Child of bench/extract.ts: runs what the extract handler does with a 25 MB multipart request on the PDF named in
 * argv[2] (API Gateway's base64 body → busboy → pdfjs text layers / rendering, OCR by a fixed-answer engine unless asked for tesseract) and prints its own peak
 * RSS. bench/extract.ts bundles it with esbuild and runs it on plain Node, as a deployed function runs: under tsx,
 * merely loading pdfjs costs ~300 MB more (on-the-fly transform of its 2 MB of JavaScript).
 */
import { readFileSync } from 'node:fs';

/**
 * This process's peak resident set (VmHWM). Not `resourceUsage().maxRSS`: on Linux that keeps the high-water mark of
 * the parent the child was forked from, across exec.
 */
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
import { eventBodyChunks, parseMultipart } from '#shared/http/multipart.ts';
import { TesseractOcrEngine } from '#shared/pdf/index.ts';
import { openPdf, type OcrEngine } from '#shared/pdf/index.ts';

const file = process.argv[2]!;
const pdf = readFileSync(file);
const boundary = 'rss-boundary';
const body = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  ),
  pdf,
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);
// The event as API Gateway / the local gateway hands it over: the body base64-encoded in a string.
const event = { body: body.toString('base64'), isBase64Encoded: true };
const baseline = peakRssMb();
const started = performance.now();
const form = await parseMultipart(eventBodyChunks(event), `multipart/form-data; boundary=${boundary}`, {
  fileSize: 26_214_400,
});
const bytes = form.files[0]!.bytes;
const doc = await openPdf(bytes);
// A measurement control: unless argv[3] is `tesseract`, OCR answers a fixed text at once, so the peak measured is
// our pipeline's (decode, render, assess, encode) alone; with tesseract.js its worker thread (WebAssembly, por+eng
// models) counts too. The product's OCR is never replaced: this file only measures memory.
let ocrPages = 0;
const tesseract = process.argv[3] === 'tesseract' ? new TesseractOcrEngine({ workers: 1 }) : undefined;
const engine: OcrEngine = tesseract ?? {
  name: 'fixed-answer',
  concurrency: 1,
  recognize: async () => {
    ocrPages++;
    return { text: 'fixed answer', confidence: 99 };
  },
};
const { pages } = await doc.extract({ ocr: { engine } });
await doc.close();
if (tesseract) {
  ocrPages = pages.filter((p) => p.ocr).length;
  await tesseract.close();
}
const ms = performance.now() - started;
const cpu = process.cpuUsage();
console.log(
  JSON.stringify({
    file: file.split('/').pop(),
    ocr: tesseract ? 'tesseract' : 'fixed-answer',
    bytes: bytes.length,
    pages: pages.length,
    ocrPages,
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    baselineMb: Math.round(baseline),
    peakRssMb: Math.round(peakRssMb()),
  }),
);
