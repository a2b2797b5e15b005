/**
 * OCR of scanned pages through the extract path (shared/pdf + tesseract.js, offline): words found on clean 200-DPI
 * scans whose text is known, and seconds per page.
 *
 *   npx tsx bench/ocr.ts [--pages 6] [--workers 1]
 *
 * Each page is a 200-DPI greyscale scan of a page of prose (11 pt serif or sans, Portuguese and English), drawn with
 * @napi-rs/canvas and embedded in a PDF with pdf-lib, so the PDF has no text layer. "Words found" = the share of the
 * page's words (lower-cased, punctuation stripped, counted with multiplicity) that appear in the OCR output.
 * Seconds per page are wall clock with the worker already started (its start-up is reported on its own), and CPU
 * seconds per page (this process plus its worker threads) for a figure the shared machine's load does not inflate.
 */
import { cpus, loadavg } from 'node:os';
import { deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState } from 'pdf-lib';
import { TesseractOcrEngine } from '#shared/pdf/index.ts';
import { extractPdfPages } from '#shared/pdf/index.ts';
import { median, numberArg } from './lib/harness.ts';
import { wordsFound } from './lib/ocr-score.ts';

const pageCount = numberArg('pages', 6);
const workers = numberArg('workers', 1);

const PROSE_PT =
  'A empresa registrou crescimento consistente nas vendas do trimestre, impulsionado pela expansão da rede de distribuição e pela melhoria do atendimento ao cliente. ' +
  'O relatório apresenta a análise detalhada das receitas, dos custos operacionais e das projeções para o próximo exercício, com atenção especial à gestão do capital de giro. ' +
  'As ações planejadas incluem a renegociação de contratos com fornecedores, a revisão dos prazos de pagamento e a ampliação do programa de fidelidade. ' +
  'A diretoria aprovou o orçamento de investimentos, que prevê a modernização dos sistemas de informação e a capacitação das equipes comerciais.';
const PROSE_EN =
  'The company reported steady growth in quarterly sales, driven by a wider distribution network and better customer service across every region. ' +
  'This report presents a detailed analysis of revenue, operating costs and the forecast for the next fiscal year, with particular attention to working capital. ' +
  'Planned actions include renegotiating supplier contracts, reviewing payment terms and extending the loyalty programme to new markets. ' +
  'The board approved the investment budget, which funds the modernisation of information systems and training for the sales teams.';

const WIDTH = 1654; // A4 at 200 DPI
const HEIGHT = 2339;

/** A clean 200-DPI scan of prose: returns the grey pixels and the words drawn. */
function scanPage(index: number): { pixels: Uint8Array; text: string } {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  ctx.fillStyle = '#000';
  const px = Math.round((11 / 72) * 200 * 1.1); // 11 pt
  ctx.font = `${px}px ${index % 2 ? 'sans-serif' : 'serif'}`;
  const prose = index % 2 ? `${PROSE_EN} ${PROSE_PT}` : `${PROSE_PT} ${PROSE_EN}`;
  const drawn: string[] = [];
  let y = 200;
  let lineText = '';
  for (const word of `${prose} ${prose}`.split(' ')) {
    const next = lineText ? `${lineText} ${word}` : word;
    if (ctx.measureText(next).width > WIDTH - 330) {
      ctx.fillText(lineText, 165, y);
      drawn.push(lineText);
      lineText = word;
      y += Math.round(px * 1.45);
      if (y > HEIGHT - 200) break;
    } else lineText = next;
  }
  const rgba = ctx.getImageData(0, 0, WIDTH, HEIGHT).data;
  const pixels = new Uint8Array(WIDTH * HEIGHT);
  for (let i = 0; i < pixels.length; i++) pixels[i] = rgba[i * 4]!;
  return { pixels, text: drawn.join('\n') };
}

async function pdfOf(pages: Uint8Array[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const pixels of pages) {
    const stream = doc.context.stream(deflateSync(pixels), {
      Filter: 'FlateDecode',
      Type: 'XObject',
      Subtype: 'Image',
      Width: WIDTH,
      Height: HEIGHT,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
    });
    const page = doc.addPage([595.28, 841.89]);
    const name = page.node.newXObject('Scan', doc.context.register(stream));
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(595.28, 0, 0, 841.89, 0, 0),
      drawObject(name),
      popGraphicsState(),
    );
  }
  return doc.save();
}

console.log(
  `# bench/ocr.ts — ${new Date().toISOString()} — ${cpus().length} cores (${cpus()[0]?.model}), node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
const engine = new TesseractOcrEngine({ workers, idleMs: 600_000 });
const pages = Array.from({ length: pageCount }, (_, i) => scanPage(i));

// Start-up: the first recognition creates the worker(s) and loads por+eng.
const startup = performance.now();
await extractPdfPages(await pdfOf([pages[0]!.pixels]), { ocr: { engine } });
const startupMs = performance.now() - startup;

console.log('\n| page | font | words | words found | share | seconds (wall) | CPU seconds |');
console.log('|---|---|---|---|---|---|---|');
const wall: number[] = [];
const cpu: number[] = [];
let found = 0;
let total = 0;
for (let i = 0; i < pages.length; i++) {
  const pdf = await pdfOf([pages[i]!.pixels]);
  const before = process.cpuUsage();
  const started = performance.now();
  const result = await extractPdfPages(pdf, { ocr: { engine } });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(before);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const page = result.pages[0]!;
  if (!page.ocr) throw new Error('page was not OCRed');
  const score = wordsFound(pages[i]!.text, page.text);
  found += score.found;
  total += score.total;
  wall.push(seconds);
  cpu.push(cpuSeconds);
  console.log(
    `| ${i + 1} | ${i % 2 ? 'sans' : 'serif'} | ${score.total} | ${score.found} | ${((100 * score.found) / score.total).toFixed(1)} % | ${seconds.toFixed(2)} | ${cpuSeconds.toFixed(2)} |`,
  );
}

const all = await pdfOf(pages.map((p) => p.pixels));
const started = performance.now();
const whole = await extractPdfPages(all, { ocr: { engine } });
const wholeSeconds = (performance.now() - started) / 1000;

console.log(`\nwords found: ${found} / ${total} = ${((100 * found) / total).toFixed(2)} %`);
console.log(
  `seconds per page (median, wall): ${median(wall).toFixed(2)}; CPU seconds per page (median, process + worker threads): ${median(cpu).toFixed(2)}`,
);
const wholeScore = whole.pages.reduce(
  (sum, page, i) => {
    const score = wordsFound(pages[i]!.text, page.text);
    return { found: sum.found + score.found, total: sum.total + score.total };
  },
  { found: 0, total: 0 },
);
console.log(
  `whole ${pages.length}-page PDF with ${workers} worker(s): ${wholeSeconds.toFixed(1)} s = ${(wholeSeconds / pages.length).toFixed(2)} s/page; ` +
    `${whole.pages.filter((p) => p.ocr).length} pages OCRed; words found ${((100 * wholeScore.found) / wholeScore.total).toFixed(2)} %`,
);
console.log(
  `worker start-up + first page: ${(startupMs / 1000).toFixed(2)} s; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
);
await engine.close();
