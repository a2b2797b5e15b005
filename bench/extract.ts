/**
 * Text PDFs: our text-layer extraction (shared/pdf, pdfjs) against poppler's `pdftotext` on the same files in the same
 * run, plus character-level agreement with pdftotext, plus peak RSS while a 25 MB PDF goes through the extract path.
 *
 *   npx tsx bench/extract.ts [--rounds 5] [--pages 100,300,1000]
 *
 * Needs `pdftotext` (Debian: apt-get install -y poppler-utils). Files are built here with pdf-lib (Helvetica, Times,
 * Courier; Portuguese and English text). Real-world PDFs found under /usr/share/doc are measured for agreement too.
 * Each round runs ours and pdftotext back to back on each file; the report gives medians. Peak RSS runs in a child
 * process per case (bench/extract-rss-child.ts, bundled) so each figure is that process's own high-water mark.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
  type PDFFont,
} from 'pdf-lib';
import { extractPdfPages } from '#shared/pdf/index.ts';
import { argValue, median, numberArg } from './lib/harness.ts';

const MAX_PDF_BYTES = 26_214_400;

const rounds = numberArg('rounds', 5);
const pageCounts = (argValue('pages') ?? '100,300,1000').split(',').map(Number);

// ---------------------------------------------------------------- corpus

const WORDS_PT =
  'o a de que e do da em um para com não uma os no se na por mais as dos como mas foi ao ele das tem à seu sua ou ser quando muito nos já está eu também só pelo pela até isso ela entre era depois sem mesmo aos ter seus quem nas me esse eles estão você tinha foram essa num nem suas meu às minha têm numa pelos elas havia seja qual será nós tenho lhe deles essas esses pelas este fosse dele relatório ação coração informação gestão pagamento contrato cliente fatura prazo entrega serviço empresa análise'.split(
    ' ',
  );
const WORDS_EN =
  'the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part invoice payment contract customer delivery service company analysis'.split(
    ' ',
  );

let rng = 42;
const random = () => {
  rng = (rng * 1664525 + 1013904223) >>> 0;
  return rng / 2 ** 32;
};
const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;

function line(font: PDFFont, size: number, maxWidth: number): string {
  const vocabulary = random() < 0.5 ? WORDS_PT : WORDS_EN;
  let text = '';
  for (;;) {
    let word = pick(vocabulary);
    if (random() < 0.08) word = word[0]!.toUpperCase() + word.slice(1);
    if (random() < 0.05) word += pick([',', '.', ';', ':']);
    if (random() < 0.03) word = String(Math.floor(random() * 10_000));
    const next = text ? `${text} ${word}` : word;
    if (font.widthOfTextAtSize(next, size) > maxWidth) return text;
    text = next;
  }
}

/**
 * `dense`: 10.5 pt, 47 lines of ~90 characters (~4,400 characters a page: a packed contract or a dictionary page).
 * `typical`: 11 pt, 32 lines of ~80 characters with wider margins (~2,500 characters: an ordinary report page).
 */
async function textPdf(pages: number, density: 'dense' | 'typical' = 'dense'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const fonts = [
    await doc.embedFont(StandardFonts.Helvetica),
    await doc.embedFont(StandardFonts.TimesRoman),
    await doc.embedFont(StandardFonts.Courier),
  ];
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595, 842]);
    const font = fonts[p % fonts.length]!;
    const size = 10.5;
    page.drawText(`Página ${p + 1} — Relatório de operações`, { x: 56, y: 790, size: 14, font: fonts[0]! });
    if (density === 'dense')
      for (let y = 760; y > 60; y -= 15) page.drawText(line(font, size, 480), { x: 56, y, size, font });
    else for (let y = 740; y > 90; y -= 20) page.drawText(line(font, 11, 430), { x: 80, y, size: 11, font });
  }
  return doc.save();
}

// ---------------------------------------------------------------- measuring

interface Timing {
  /** Wall-clock milliseconds. */
  ms: number;
  /** CPU milliseconds (user + system): what the work costs on a core of its own, whatever else runs. */
  cpuMs: number;
  pages: string[];
}

/** pdftotext in a shell whose `times` builtin reports the child's CPU time. */
function pdftotext(file: string): Timing {
  const out = `${file}.txt`;
  const started = performance.now();
  const result = spawnSync('bash', ['-c', 'pdftotext -enc UTF-8 "$1" "$2" && times', 'bench', file, out], {
    encoding: 'utf8',
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr}`);
  const children = result.stdout
    .trim()
    .split('\n')
    .at(-1)!
    .match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/)!;
  const cpuMs =
    (Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000;
  const pages = readFileSync(out, 'utf8').split('\f');
  if (pages.at(-1) === '') pages.pop();
  return { ms, cpuMs, pages };
}

async function ours(bytes: Uint8Array): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { pages } = await extractPdfPages(bytes);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, pages: pages.map((p) => p.text) };
}

const normalize = (text: string) => text.normalize('NFKC').replace(/\s+/g, ' ').trim();

/** 2·LCS / (|a| + |b|) over characters (Myers' O((N+M)·D) diff; exact while D stays under `maxD`). */
function similarity(a: string, b: string, maxD = 4_000): number {
  const n = a.length;
  const m = b.length;
  if (n + m === 0) return 1;
  const max = Math.min(n + m, maxD);
  const v = new Int32Array(2 * max + 2);
  const offset = max + 1;
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a.charCodeAt(x) === b.charCodeAt(y)) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return 1 - d / (n + m);
    }
  }
  return 1 - max / (n + m);
}

function agreement(oursPages: string[], theirPages: string[]): { mean: number; min: number; chars: number } {
  const count = Math.max(oursPages.length, theirPages.length);
  let weighted = 0;
  let total = 0;
  let min = 1;
  for (let i = 0; i < count; i++) {
    const a = normalize(oursPages[i] ?? '');
    const b = normalize(theirPages[i] ?? '');
    const s = similarity(a, b);
    const weight = a.length + b.length;
    weighted += s * weight;
    total += weight;
    if (weight > 0) min = Math.min(min, s);
  }
  return { mean: total ? weighted / total : 1, min, chars: total / 2 };
}

// ---------------------------------------------------------------- peak RSS (child processes)

/** Just under 25 MB of text pages (compressed content streams): sized from a 300-page sample, built once. */
async function bigTextPdf(): Promise<Uint8Array> {
  const sample = await textPdf(300);
  let pages = Math.floor((300 * MAX_PDF_BYTES * 0.97) / sample.length);
  for (;;) {
    const bytes = await textPdf(pages);
    if (bytes.length <= MAX_PDF_BYTES) return bytes;
    pages = Math.floor(pages * 0.97);
  }
}

/**
 * ~25 MB of 200-DPI greyscale scans (text drawn on a canvas): `jpeg` as office scanners write them (~150 KB a page,
 * so ~170 pages), or `flate` with scanner grain (~2 MB a page: few, heavy pages).
 */
async function bigScanPdf(encoding: 'jpeg' | 'flate', maxPages = Number.POSITIVE_INFINITY): Promise<Uint8Array> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const width = 1654;
  const height = 2339; // A4 at 200 DPI
  const doc = await PDFDocument.create();
  let size = 0;
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 0; size < MAX_PDF_BYTES * 0.95 && n < maxPages; n++) {
    const canvas = createCanvas(width, height);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = '#000';
    ctx.font = '33px serif';
    for (let y = 160; y < height - 140; y += 48) ctx.fillText(line(helvetica, 11, 460), 150, y);
    const page = doc.addPage([595, 842]);
    if (encoding === 'jpeg') {
      const jpeg = canvas.toBuffer('image/jpeg', 75);
      size += jpeg.length;
      page.drawImage(await doc.embedJpg(jpeg), { x: 0, y: 0, width: 595, height: 842 });
    } else {
      const rgba = ctx.getImageData(0, 0, width, height).data;
      const grey = new Uint8Array(width * height);
      // Scanner grain: the pages compress like raw scans do (badly).
      for (let i = 0; i < grey.length; i++)
        grey[i] = Math.max(0, Math.min(255, rgba[i * 4]! + Math.round((random() - 0.5) * 24)));
      const compressed = deflateSync(grey, { level: 6 });
      size += compressed.length;
      const stream = doc.context.stream(compressed, {
        Filter: 'FlateDecode',
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        ColorSpace: 'DeviceGray',
        BitsPerComponent: 8,
      });
      const name = page.node.newXObject('Scan', doc.context.register(stream));
      page.pushOperators(
        pushGraphicsState(),
        concatTransformationMatrix(595, 0, 0, 842, 0, 0),
        drawObject(name),
        popGraphicsState(),
      );
    }
  }
  const bytes = await doc.save();
  if (bytes.length > MAX_PDF_BYTES) throw new Error(`scan PDF too large: ${bytes.length}`);
  return bytes;
}

/** The RSS child as a deployed function runs: one esbuild bundle on plain Node (native canvas left external). */
async function bundleRssChild(): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(process.cwd(), 'node_modules', '.cache', 'bench-extract', 'rss-child.mjs');
  await build({
    entryPoints: [join(process.cwd(), 'bench', 'extract-rss-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    // Native, or loading files from their package folders at run time: shipped beside the bundle, as infra/ does.
    external: ['@napi-rs/canvas', 'tesseract.js'],
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

// ---------------------------------------------------------------- main

const dir = mkdtempSync(join(tmpdir(), 'bench-extract-'));
try {
  console.log(
    `# bench/extract.ts — ${new Date().toISOString()} — ${cpus().length} cores (${cpus()[0]?.model}), node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const files: { name: string; path: string; bytes: Uint8Array; pages: number }[] = [];
  for (const density of ['dense', 'typical'] as const) {
    for (const pages of pageCounts) {
      const bytes = await textPdf(pages, density);
      const path = join(dir, `${density}-${pages}.pdf`);
      writeFileSync(path, bytes);
      files.push({ name: `${density}-${pages}`, path, bytes, pages });
    }
  }
  // Warm-up: pdfjs loads and compiles once per process (a cold Lambda pays this once, not per request).
  await ours(files[0]!.bytes);
  pdftotext(files[0]!.path);

  if (!process.argv.includes('--rss-only')) {
    console.log('\nWall clock (medians; the machine is shared, so these are slowed by everyone else):\n');
    console.log(
      '| file | pages | MB | ours ms | ours pages/s | pdftotext ms | pdftotext pages/s | ours / pdftotext (median of per-round ratios) |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    const cpuRows: string[] = [];
    const agreementRows: string[] = [];
    for (const file of files) {
      const a: Timing[] = [];
      const b: Timing[] = [];
      for (let r = 0; r < rounds; r++) {
        a.push(await ours(file.bytes));
        b.push(pdftotext(file.path));
      }
      const agree = agreement(a.at(-1)!.pages, b.at(-1)!.pages);
      const o = median(a.map((t) => t.ms));
      const t = median(b.map((t) => t.ms));
      const oc = median(a.map((t) => t.cpuMs));
      const tc = median(b.map((t) => t.cpuMs));
      // Ratio per round (both measured back to back), then the median: noise shared by the pair cancels out.
      const wallRatio = median(a.map((x, i) => x.ms / b[i]!.ms));
      const cpuRatio = median(a.map((x, i) => x.cpuMs / Math.max(1, b[i]!.cpuMs)));
      console.log(
        `| ${file.name} | ${file.pages} | ${(file.bytes.length / 1e6).toFixed(2)} | ${o.toFixed(0)} | ${((file.pages * 1000) / o).toFixed(0)} | ${t.toFixed(0)} | ${((file.pages * 1000) / t).toFixed(0)} | ${wallRatio.toFixed(2)}× |`,
      );
      cpuRows.push(
        `| ${file.name} | ${oc.toFixed(0)} | ${((file.pages * 1000) / oc).toFixed(0)} | ${tc.toFixed(0)} | ${((file.pages * 1000) / tc).toFixed(0)} | ${cpuRatio.toFixed(2)}× |`,
      );
      agreementRows.push(
        `| ${file.name} | ${(agree.chars / file.pages).toFixed(0)} | ${agree.mean.toFixed(4)} | ${agree.min.toFixed(4)} |`,
      );
    }
    console.log('\nCPU time (user + system, medians): pages per CPU-second = pages/s on a core of its own:\n');
    console.log(
      '| file | ours CPU ms | ours pages/CPU-s | pdftotext CPU ms | pdftotext pages/CPU-s | ours / pdftotext |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const row of cpuRows) console.log(row);
    console.log(
      '\nAgreement with pdftotext (2·LCS / (|a|+|b|) per page on whitespace-normalised text, weighted by length):\n',
    );
    console.log('| file | characters a page | mean | worst page |');
    console.log('|---|---|---|---|');
    for (const row of agreementRows) console.log(row);

    const realWorld = [
      '/usr/share/doc/libtasn1-doc/libtasn1.pdf',
      '/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf',
    ].filter(existsSync);
    if (realWorld.length) {
      console.log(
        '\nReal-world PDFs on this machine (agreement only; LaTeX/Texinfo output with embedded Type 1 fonts):\n',
      );
      console.log('| file | pages | ours ms | pdftotext ms | agreement (mean, worst page) |');
      console.log('|---|---|---|---|---|');
      for (const path of realWorld) {
        const bytes = new Uint8Array(readFileSync(path));
        const a = await ours(bytes);
        const b = pdftotext(path);
        const agree = agreement(a.pages, b.pages);
        console.log(
          `| ${path.split('/').pop()} | ${a.pages.length} | ${a.ms.toFixed(0)} | ${b.ms.toFixed(0)} | ${agree.mean.toFixed(4)}, ${agree.min.toFixed(4)} |`,
        );
      }
    }
  }

  if (!process.argv.includes('--no-rss')) {
    console.log(
      '\nPeak RSS of the extract path on a 25 MB multipart request (bench/extract-rss-child.ts bundled, a fresh plain-Node process each, OCR answered by a fixed-answer engine):\n',
    );
    const child = await bundleRssChild();
    const big: [string, () => Promise<Uint8Array>][] = [
      ['text-25mb', bigTextPdf],
      ['scan-jpeg-25mb', () => bigScanPdf('jpeg')],
      ['scan-flate-25mb', () => bigScanPdf('flate')],
    ];
    for (const [name, build] of big) {
      const path = join(dir, name);
      writeFileSync(path, await build());
      for (const flags of [[], ['--max-old-space-size=256']]) {
        const run = spawnSync(process.execPath, [...flags, child, path], { encoding: 'utf8', maxBuffer: 1 << 20 });
        const label = flags.length ? flags.join(' ') : 'default flags';
        if (run.status !== 0) console.log(`${name} (${label}) failed: ${run.stderr.slice(-500)}`);
        else console.log(`${label}: ${run.stdout.trim()}`);
      }
    }
    // tesseract.js's own share: a short scan (5 pages of the same JPEG scans) OCRed for real in the child.
    const shortScan = join(dir, 'scan-jpeg-5pages');
    writeFileSync(shortScan, await bigScanPdf('jpeg', 5));
    for (const engine of ['fixed-answer', 'tesseract']) {
      const run = spawnSync(process.execPath, [child, shortScan, engine], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (run.status !== 0) console.log(`scan-jpeg-5pages (${engine}) failed: ${run.stderr.slice(-500)}`);
      else console.log(`default flags: ${run.stdout.trim()}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
