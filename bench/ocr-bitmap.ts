/**
 * OCR word accuracy on scanned pages printed in bitmap faces (square pixels, and round dot-matrix dots touching or
 * apart) at several sizes, clean and as a scanner degrades them, beside the existing ordinary-print pages of
 * bench/ocr-accuracy.ts: this tree's page preparation against an anchor tree's, in the same run.
 *
 *   npx tsx bench/ocr-bitmap.ts [--anchor /path/to/other/worktree] [--runs 1] [--only bitmap|fonts]
 *
 * `--anchor`: a checkout whose `shared/pdf/prepare.ts` prepares the pages of the "before" column, inside this tree's
 * rendering (default: this tree with the page preparation off). Every page is read before then after, alternately, by one tesseract.js worker (offline, por+eng,
 * the same engine for both), so both see the same machine load.
 * Pages: US Letter at 200 DPI, greyscale, the only content of a PDF page (no text layer), read as extract and
 * ingestion read them (pdfjs → render.ts → tesseract). "Scanned": the page turned 0.4°, blurred (σ ≈ 0.8 px), printed
 * grey (ink 60, paper 225) with Gaussian noise (σ 10), as a flatbed scan of a receipt looks.
 * "Words found" as in bench/ocr-accuracy.ts; seconds per page = render + prepare + recognize, median per page.
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { TesseractOcrEngine } from '#shared/pdf/index.ts';
import { drawDotMatrixText } from '#test/support/dot-matrix.ts';
import { debianFonts, TEST_SANS, useTestFonts } from '#test/support/fonts.ts';
import { type GreyImage, mixedPdf } from '#test/support/pdf-fixtures.ts';
import { median, numberArg } from './lib/harness.ts';
import { readScannedPage } from './lib/ocr-read.ts';
import { wordsFound } from './lib/ocr-score.ts';

const runs = numberArg('runs', 1);
const argValue = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const anchorDir = argValue('anchor');
const only = argValue('only');

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
/** Receipt lines: the words of bench/ocr-accuracy.ts, then others, so no one text is tuned for. */
const RECEIPTS = [
  [
    'INVOICE TOTAL 1,234.50',
    'CUSTOMER NO 48213 VAT 7.5%',
    'QUICK BROWN FOX JUMPS OVER THE LAZY DOG',
    'SUBTOTAL 42.05 CASH PAYMENT RECEIVED',
    'DATE 12/03/2024 TIME 14:05 TILL 3',
    'THANK YOU FOR YOUR VISIT',
  ],
  [
    'ORDER 55017 SHIPPED TO WAREHOUSE B',
    'QTY 12 UNIT PRICE 3.99 AMOUNT 47.88',
    'BALANCE DUE 906.10 PAY BY 30/06/2025',
    'NOTA FISCAL 7781 CNPJ 12.345/0001-90',
    'VALOR TOTAL R$ 315,70 TROCO 4,30',
    'JACKDAWS LOVE MY BIG SPHINX OF QUARTZ',
  ],
];

type Ctx = ReturnType<ReturnType<typeof createCanvas>['getContext']>;

interface BenchPage {
  group: 'bitmap' | 'fonts';
  face: string;
  size: string;
  scan: string;
  lines: string[];
  image: GreyImage;
}

/** Deterministic normal noise (Box-Muller over a small LCG): the same pages on every run. */
function noise(seed: number) {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function greyPage(draw: (ctx: Ctx) => void, scanned: boolean, seed: number): GreyImage {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  ctx.fillStyle = '#000';
  draw(ctx);
  let source = canvas;
  if (scanned) {
    const turned = createCanvas(WIDTH, HEIGHT);
    const t = turned.getContext('2d');
    t.fillStyle = '#fff';
    t.fillRect(0, 0, WIDTH, HEIGHT);
    t.filter = 'blur(0.8px)';
    t.translate(WIDTH / 2, HEIGHT / 2);
    t.rotate((0.4 * Math.PI) / 180);
    t.translate(-WIDTH / 2, -HEIGHT / 2);
    t.drawImage(canvas, 0, 0);
    source = turned;
  }
  const rgba = source.getContext('2d').getImageData(0, 0, WIDTH, HEIGHT).data;
  const pixels = new Uint8Array(WIDTH * HEIGHT);
  const gauss = noise(seed);
  for (let i = 0; i < pixels.length; i++) {
    const v = rgba[i * 4]!;
    pixels[i] = scanned ? Math.max(0, Math.min(255, Math.round(60 + (v * (225 - 60)) / 255 + 10 * gauss()))) : v;
  }
  return { width: WIDTH, height: HEIGHT, pixels };
}

function pages(): BenchPage[] {
  const out: BenchPage[] = [];
  let seed = 1;
  if (only !== 'fonts') {
    const faces = [
      { face: 'square pixels', shape: 'square' as const, dot: 1 },
      { face: 'dots touching', shape: 'round' as const, dot: 0.9 },
      { face: 'dots apart', shape: 'round' as const, dot: 0.6 },
    ];
    for (const { face, shape, dot } of faces)
      for (const pitch of [2.5, 3.5, 4.5, 5.5])
        for (const scanned of [false, true]) {
          const lines = RECEIPTS[(pitch * 2 + (scanned ? 1 : 0)) % 2]!;
          out.push({
            group: 'bitmap',
            face,
            size: `pitch ${pitch} px (${((pitch * 7 * 72) / DPI).toFixed(1)} pt caps)`,
            scan: scanned ? 'scanned' : 'clean',
            lines,
            image: greyPage(
              (ctx) => {
                for (const [i, line] of lines.entries())
                  drawDotMatrixText(ctx, line, 150, 250 + i * pitch * 12, { pitch, dot, shape });
              },
              scanned,
              seed++,
            ),
          });
        }
  }
  if (only !== 'bitmap') {
    useTestFonts();
    for (const family of [TEST_SANS, ...debianFonts().map((f) => f.family)])
      for (const pt of [7, 9, 11]) {
        const px = Math.round((pt / 72) * DPI);
        out.push({
          group: 'fonts',
          face: family.replace('Switchboard Test ', '').replace(/^Sans$/, 'Liberation Sans'),
          size: `${pt} pt`,
          scan: 'clean',
          lines: PROSE,
          image: greyPage(
            (ctx) => {
              ctx.font = `${px}px "${family}"`;
              for (const [i, line] of PROSE.entries()) ctx.fillText(line, 150, 250 + i * px * 1.6);
            },
            false,
            seed++,
          ),
        });
      }
  }
  return out;
}

type Prepare = typeof import('#shared/pdf/index.ts').prepareForOcr;
// The anchor's preparation runs inside this tree's rendering (one pdfjs and one canvas library for both).
const anchorPrepare = anchorDir
  ? ((await import(pathToFileURL(`${anchorDir}/shared/pdf/prepare.ts`).href)) as { prepareForOcr: Prepare })
      .prepareForOcr
  : undefined;

const engine = new TesseractOcrEngine({ workers: 1, idleMs: 600_000 });
const readBefore = (pdf: Uint8Array) => readScannedPage(engine, pdf, DPI, { prepare: anchorPrepare ?? false });
const readAfter = (pdf: Uint8Array) => readScannedPage(engine, pdf, DPI, {});

console.log(
  `# bench/ocr-bitmap.ts — ${new Date().toISOString()} — ${cpus().length} cores, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, runs ${runs}, before = ${anchorDir ?? 'this tree, preparation off'}`,
);
const set = pages();
const pdfs = await Promise.all(set.map((p) => mixedPdf([{ image: p.image }])));
await readAfter(pdfs[0]!); // worker start-up, not measured

const sums = new Map<string, { before: number; after: number; total: number; sBefore: number[]; sAfter: number[] }>();
console.log('\n| face | size | scan | words | found before | found after | s/page before | s/page after |');
console.log('|---|---|---|---|---|---|---|---|');
for (let i = 0; i < set.length; i++) {
  const page = set[i]!;
  const truth = page.lines.join('\n');
  const counts = { before: [] as number[], after: [] as number[] };
  const timing = { before: [] as number[], after: [] as number[] };
  let texts = { before: '', after: '' };
  for (let run = 0; run < runs; run++) {
    const before = await readBefore(pdfs[i]!);
    const after = await readAfter(pdfs[i]!);
    counts.before.push(wordsFound(truth, before.text).found);
    counts.after.push(wordsFound(truth, after.text).found);
    timing.before.push(before.seconds);
    timing.after.push(after.seconds);
    texts = { before: before.text, after: after.text };
  }
  const total = wordsFound(truth, '').total;
  const found = { before: median(counts.before), after: median(counts.after) };
  for (const key of [page.group, `${page.group}, ${page.scan}`, 'all']) {
    const sum = sums.get(key) ?? { before: 0, after: 0, total: 0, sBefore: [], sAfter: [] };
    sum.before += found.before;
    sum.after += found.after;
    sum.total += total;
    sum.sBefore.push(median(timing.before));
    sum.sAfter.push(median(timing.after));
    sums.set(key, sum);
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(0)} %`;
  console.log(
    `| ${page.face} | ${page.size} | ${page.scan} | ${total} | ${pct(found.before)} | ${pct(found.after)} | ${median(timing.before).toFixed(2)} | ${median(timing.after).toFixed(2)} |`,
  );
  if (process.env.SHOW_TEXT)
    console.log(`  before: ${texts.before.replace(/\n+/g, ' / ')}\n  after: ${texts.after.replace(/\n+/g, ' / ')}`);
}
console.log('');
for (const [key, s] of [...sums].sort(([a], [b]) => a.localeCompare(b)))
  console.log(
    `words found, ${key}: before ${s.before}/${s.total} = ${((100 * s.before) / s.total).toFixed(1)} %, after ${s.after}/${s.total} = ${((100 * s.after) / s.total).toFixed(1)} %; s/page (median) before ${median(s.sBefore).toFixed(2)}, after ${median(s.sAfter).toFixed(2)}`,
  );
await engine.close();
