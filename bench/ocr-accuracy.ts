/**
 * Word accuracy of OCR on generated scans in several faces and sizes, with the page preparation before OCR
 * (shared/pdf/prepare.ts: smoothing sized to the print, Otsu threshold) off and on, in the same run.
 *
 *   npx tsx bench/ocr-accuracy.ts [--runs 1]
 *
 * Pages: US Letter at 200 DPI, greyscale, embedded as the only content of a PDF page (no text layer), so they go
 * through the same rendering as extract and ingestion (pdfjs → shared/pdf/render.ts → tesseract.js, offline).
 * Faces: Liberation Sans (from pdfjs-dist, loaded from its file), the DejaVu faces of a bare Debian when installed,
 * each at 7, 9 and 11 pt; and a dot-matrix face drawn dot by dot (test/support/dot-matrix.ts) at three dot pitches,
 * with dots that touch (0.9 of the pitch) and dots apart (0.6), as receipts and old invoices print.
 * "Words found" = the share of the page's words (case-folded, punctuation stripped, with multiplicity) that appear in
 * the OCR output. Words found and seconds per page (render + prepare + recognize, worker already started) are the
 * median over `--runs` runs (a page's words found can differ by a word or two between runs of the same worker).
 */
import { cpus, loadavg } from 'node:os';
import { createCanvas } from '@napi-rs/canvas';
import { TesseractOcrEngine } from '#shared/pdf/index.ts';
import { drawDotMatrixText } from '#test/support/dot-matrix.ts';
import { debianFonts, TEST_SANS, useTestFonts } from '#test/support/fonts.ts';
import { type GreyImage, mixedPdf } from '#test/support/pdf-fixtures.ts';
import { median, numberArg } from './lib/harness.ts';
import { readScannedPage } from './lib/ocr-read.ts';
import { wordsFound } from './lib/ocr-score.ts';

const runs = numberArg('runs', 1);

const DPI = 200;
const WIDTH = Math.round(8.5 * DPI);
const HEIGHT = Math.round(11 * DPI);

const PROSE = [
  'The board approved the investment budget for the next fiscal year.',
  'Planned actions include renegotiating supplier contracts quickly.',
  'A empresa registrou crescimento consistente nas vendas do trimestre.',
  'O relatório apresenta a análise detalhada das receitas e dos custos.',
  'Working capital, payment terms and the loyalty programme: 1,234.50',
  'Invoice 2024/118 is due on 15 March; questions to billing@example.com',
];
const RECEIPT = [
  'INVOICE TOTAL 1,234.50',
  'CUSTOMER NO 48213 VAT 7.5%',
  'QUICK BROWN FOX JUMPS OVER THE LAZY DOG',
  'SUBTOTAL 42.05 CASH PAYMENT RECEIVED',
  'DATE 12/03/2024 TIME 14:05 TILL 3',
  'THANK YOU FOR YOUR VISIT',
];

interface BenchPage {
  face: string;
  size: string;
  lines: string[];
  image: GreyImage;
}

function greyPage(draw: (ctx: ReturnType<ReturnType<typeof createCanvas>['getContext']>) => void): GreyImage {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  ctx.fillStyle = '#000';
  draw(ctx);
  const rgba = ctx.getImageData(0, 0, WIDTH, HEIGHT).data;
  const pixels = new Uint8Array(WIDTH * HEIGHT);
  for (let i = 0; i < pixels.length; i++) pixels[i] = rgba[i * 4]!;
  return { width: WIDTH, height: HEIGHT, pixels };
}

function pages(): BenchPage[] {
  useTestFonts();
  const faces = [TEST_SANS, ...debianFonts().map((f) => f.family)];
  const out: BenchPage[] = [];
  for (const family of faces)
    for (const pt of [7, 9, 11]) {
      const px = Math.round((pt / 72) * DPI);
      out.push({
        face: family.replace('Switchboard Test ', '').replace(/^Sans$/, 'Liberation Sans'),
        size: `${pt} pt`,
        lines: PROSE,
        image: greyPage((ctx) => {
          ctx.font = `${px}px "${family}"`;
          for (const [i, line] of PROSE.entries()) ctx.fillText(line, 150, 250 + i * px * 1.6);
        }),
      });
    }
  for (const pitch of [2.5, 3.5, 4.5])
    for (const dot of [0.9, 0.6])
      out.push({
        face: `dot-matrix, dots ${dot === 0.9 ? 'touching' : 'apart'}`,
        size: `pitch ${pitch} px (${((pitch * 7 * 72) / DPI).toFixed(1)} pt caps)`,
        lines: RECEIPT,
        image: greyPage((ctx) => {
          for (const [i, line] of RECEIPT.entries())
            drawDotMatrixText(ctx, line, 150, 250 + i * pitch * 12, { pitch, dot });
        }),
      });
  return out;
}

const engine = new TesseractOcrEngine({ workers: 1, idleMs: 600_000 });

/** Render (prepared or not) and recognize page 1 of `pdf`, as extract does for a page without a text layer. */
const read = (pdf: Uint8Array, prepare: boolean) => readScannedPage(engine, pdf, DPI, { prepare });

console.log(
  `# bench/ocr-accuracy.ts — ${new Date().toISOString()} — ${cpus().length} cores (${cpus()[0]?.model}), node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, runs ${runs}`,
);
const set = pages();
const pdfs = await Promise.all(set.map((p) => mixedPdf([{ image: p.image }])));
await read(pdfs[0]!, true); // worker start-up, not measured

const totals = { before: { found: 0, total: 0 }, after: { found: 0, total: 0 } };
const faceTotals = new Map<string, { before: number; after: number; total: number }>();
const seconds = { before: [] as number[], after: [] as number[] };
console.log('\n| face | size | words | found before | found after | s/page before | s/page after |');
console.log('|---|---|---|---|---|---|---|');
for (let i = 0; i < set.length; i++) {
  const page = set[i]!;
  const truth = page.lines.join('\n');
  const timing = { before: [] as number[], after: [] as number[] };
  const counts = { before: [] as number[], after: [] as number[] };
  let texts = { before: '', after: '' };
  for (let run = 0; run < runs; run++) {
    // Alternated within the run, so both modes see the same machine load.
    const before = await read(pdfs[i]!, false);
    const after = await read(pdfs[i]!, true);
    timing.before.push(before.seconds);
    timing.after.push(after.seconds);
    counts.before.push(wordsFound(truth, before.text).found);
    counts.after.push(wordsFound(truth, after.text).found);
    texts = { before: before.text, after: after.text };
  }
  const total = wordsFound(truth, '').total;
  const before = { found: median(counts.before), total };
  const after = { found: median(counts.after), total };
  totals.before.found += before.found;
  totals.before.total += before.total;
  totals.after.found += after.found;
  totals.after.total += after.total;
  const group = page.face.startsWith('dot-matrix') ? 'dot-matrix' : 'fonts';
  const sum = faceTotals.get(group) ?? { before: 0, after: 0, total: 0 };
  faceTotals.set(group, {
    before: sum.before + before.found,
    after: sum.after + after.found,
    total: sum.total + before.total,
  });
  seconds.before.push(median(timing.before));
  seconds.after.push(median(timing.after));
  const pct = (n: number) => `${((100 * n) / total).toFixed(0)} %`;
  const spread = (values: number[]) =>
    Math.min(...values) === Math.max(...values) ? '' : ` (${Math.min(...values)}–${Math.max(...values)} words)`;
  console.log(
    `| ${page.face} | ${page.size} | ${total} | ${pct(before.found)}${spread(counts.before)} | ${pct(after.found)}${spread(counts.after)} | ${median(timing.before).toFixed(2)} | ${median(timing.after).toFixed(2)} |`,
  );
  if (page.lines === RECEIPT && runs === 1 && process.env.SHOW_TEXT)
    console.log(`before: ${texts.before.replace(/\n+/g, ' / ')}\nafter: ${texts.after.replace(/\n+/g, ' / ')}`);
}
const share = (t: { found: number; total: number }) =>
  `${t.found}/${t.total} = ${((100 * t.found) / t.total).toFixed(1)} %`;
console.log(`\nwords found, all pages: before ${share(totals.before)}, after ${share(totals.after)}`);
for (const [group, t] of faceTotals)
  console.log(
    `words found, ${group}: before ${share({ found: t.before, total: t.total })}, after ${share({ found: t.after, total: t.total })}`,
  );
console.log(
  `seconds per page (median over pages of each page's median): before ${median(seconds.before).toFixed(2)}, after ${median(seconds.after).toFixed(2)}`,
);
await engine.close();
