/**
 * Child of bench/pdf-bombs.ts: loads pdfjs and its decode bound (one tiny document), says `ready`, waits for a go,
 * reads the PDF named in argv[2] as extract does (text layers, the drawing of thin pages, every limit), and prints the
 * outcome with this process's CPU time.
 */
import { readFileSync } from 'node:fs';
import { extractPdfPages, PdfTooLargeError } from '#shared/pdf/index.ts';
import { onePage, writePdf } from '#test/support/pdf-writer.ts';

await extractPdfPages(writePdf(onePage())).catch(() => undefined);
const bytes = new Uint8Array(readFileSync(process.argv[2]!));
console.log('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
const cpu = process.cpuUsage();
const started = performance.now();
const outcome = await extractPdfPages(bytes).then(
  (read) => `read (${read.pages.map((p) => p.text.length).join(', ')} chars)`,
  (error: unknown) =>
    error instanceof PdfTooLargeError
      ? `refused (${error.limit})`
      : `${(error as Error).name}: ${(error as Error).message}`,
);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ outcome, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }));
process.exit(0);
