import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import { type DotMatrixStyle, drawDotMatrixText } from './dot-matrix.ts';
import { testFont } from './fonts.ts';

/**
 * PDFs built for tests with pdf-lib: real files, each made for one behaviour (text layer, scan, mixed, blank,
 * noise, encrypted, truncated, oversized).
 */

const LETTER: [number, number] = [612, 792];

/** A page of typed text per entry (lines split on `\n`), Helvetica 12 pt. */
export async function textPdf(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) addTextPage(doc, font, text);
  return doc.save();
}

function addTextPage(doc: PDFDocument, font: PDFFont, text: string): void {
  const page = doc.addPage(LETTER);
  let y = 740;
  for (const line of text.split('\n')) {
    page.drawText(line, { x: 56, y, size: 12, font });
    y -= 18;
  }
}

/** An 8-bit grey image, row by row. */
export interface GreyImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/**
 * A scanned page: the text drawn onto a white 200-DPI image with @napi-rs/canvas (as a scanner would produce it), in
 * a font loaded from a file (./fonts.ts), so the scan is the same on every machine.
 * Embedded as the page's only content it leaves the page with no text layer.
 */
export function scanImage(text: string, options: { dpi?: number; fontPx?: number } = {}): GreyImage {
  const dpi = options.dpi ?? 200;
  const width = Math.round((LETTER[0] / 72) * dpi);
  const height = Math.round((LETTER[1] / 72) * dpi);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#000000';
  const fontPx = options.fontPx ?? Math.round((12 / 72) * dpi * 1.2);
  context.font = testFont(fontPx);
  let y = Math.round(dpi * 0.9);
  for (const line of text.split('\n')) {
    context.fillText(line, Math.round(dpi * 0.75), y);
    y += Math.round(fontPx * 1.5);
  }
  const rgba = context.getImageData(0, 0, width, height).data;
  const pixels = new Uint8Array(width * height);
  for (let i = 0; i < pixels.length; i++)
    pixels[i] = (rgba[i * 4]! * 77 + rgba[i * 4 + 1]! * 150 + rgba[i * 4 + 2]! * 29) >> 8;
  return { width, height, pixels };
}

/** A scanned receipt printed in dot-matrix (./dot-matrix.ts): the lines on a white 200-DPI page, as `scanImage`. */
export function dotMatrixScanImage(lines: string[], style: DotMatrixStyle): GreyImage {
  const width = Math.round((LETTER[0] / 72) * 200);
  const height = Math.round((LETTER[1] / 72) * 200);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  for (const [i, line] of lines.entries()) drawDotMatrixText(context, line, 150, 250 + i * style.pitch * 12, style);
  const rgba = context.getImageData(0, 0, width, height).data;
  const pixels = new Uint8Array(width * height);
  for (let i = 0; i < pixels.length; i++)
    pixels[i] = (rgba[i * 4]! * 77 + rgba[i * 4 + 1]! * 150 + rgba[i * 4 + 2]! * 29) >> 8;
  return { width, height, pixels };
}

/** An image of random black and white dots at 200 DPI, like a page of pure scanner noise. */
export function noiseImage(options: { density?: number } = {}): GreyImage {
  const width = Math.round((LETTER[0] / 72) * 200);
  const height = Math.round((LETTER[1] / 72) * 200);
  const random = randomBytes(width * height);
  const cut = Math.round((options.density ?? 0.5) * 256);
  const pixels = new Uint8Array(width * height);
  for (let i = 0; i < pixels.length; i++) pixels[i] = random[i]! < cut ? 0 : 255;
  return { width, height, pixels };
}

/** `typed` on a scan adds a line of real text over the image (a scanned page with a typed header). */
export type PageSpec = { text: string } | { scan: string; typed?: string } | { image: GreyImage } | { blank: true };

/** A PDF whose pages are typed text, scans of text, grey images or blank, in order. */
export async function mixedPdf(pages: PageSpec[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const spec of pages) {
    if ('text' in spec) addTextPage(doc, font, spec.text);
    else if ('blank' in spec) doc.addPage(LETTER);
    else {
      const page = addImagePage(doc, 'scan' in spec ? scanImage(spec.scan) : spec.image);
      if ('scan' in spec && spec.typed) page.drawText(spec.typed, { x: 56, y: 770, size: 10, font });
    }
  }
  return doc.save();
}

/** A page covered by one grey image XObject (Flate-compressed with node's zlib: fast, unlike PNG through pdf-lib). */
function addImagePage(doc: PDFDocument, image: GreyImage): PDFPage {
  const stream = doc.context.stream(deflateSync(image.pixels, { level: 1 }), {
    Filter: 'FlateDecode',
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    ColorSpace: 'DeviceGray',
    BitsPerComponent: 8,
  });
  const page = doc.addPage(LETTER);
  const name = page.node.newXObject('Scan', doc.context.register(stream));
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(LETTER[0], 0, 0, LETTER[1], 0, 0),
    drawObject(name),
    popGraphicsState(),
  );
  return page;
}

export const scannedPdf = (text: string) => mixedPdf([{ scan: text }]);
export const blankPdf = () => mixedPdf([{ blank: true }]);
export const noisePdf = () => mixedPdf([{ image: noiseImage() }]);

/**
 * A PDF protected by a user password (standard security handler, RC4 40-bit entries). The O/U entries do not
 * match the empty password, so a reader must ask for one, as it would for any password-protected file.
 */
export async function encryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  addTextPage(doc, font, 'Secret quarterly numbers');
  const context = doc.context;
  const encrypt = context.obj({
    Filter: PDFName.of('Standard'),
    V: PDFNumber.of(1),
    R: PDFNumber.of(2),
    Length: PDFNumber.of(40),
    P: PDFNumber.of(-3904),
    O: PDFHexString.of(randomBytes(32).toString('hex')),
    U: PDFHexString.of(randomBytes(32).toString('hex')),
  });
  const id = PDFHexString.of(randomBytes(16).toString('hex'));
  context.trailerInfo.Encrypt = context.register(encrypt);
  context.trailerInfo.ID = context.obj([id, id]);
  return doc.save({ useObjectStreams: false });
}

/** The first `fraction` of a valid PDF's bytes, as an interrupted download leaves it. */
export async function truncatedPdf(fraction = 0.6): Promise<Uint8Array> {
  const bytes = await textPdf(['A page that will be cut short.', 'And another one.']);
  return bytes.subarray(0, Math.floor(bytes.length * fraction));
}

/**
 * A valid PDF of exactly `size` bytes: one text page plus an unreferenced stream of random bytes, padded after
 * `%%EOF` with newlines to the exact size.
 */
export async function pdfOfSize(size: number, text = 'Big file first page'): Promise<Uint8Array> {
  const probe = await build(0);
  const overhead = probe.length + 200;
  let bytes = await build(Math.max(0, size - overhead));
  if (bytes.length > size) throw new Error(`pdfOfSize: overhead estimate too small (${bytes.length} > ${size})`);
  if (size - bytes.length > 1000) throw new Error(`pdfOfSize: overhead estimate too large (${size - bytes.length})`);
  const padded = new Uint8Array(size);
  padded.set(bytes);
  padded.fill(0x0a, bytes.length);
  bytes = padded;
  return bytes;

  async function build(filler: number): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    addTextPage(doc, font, text);
    if (filler > 0) doc.context.register(doc.context.stream(randomBytes(filler)));
    return doc.save({ useObjectStreams: false });
  }
}

/** The upper bound: 25 MB. */
export const MAX_PDF_BYTES = 26_214_400;

/**
 * Text in an invisible font: each page's content stream draws `textBytesPerPage` bytes of text in Helvetica at
 * 0.01 pt, Flate-compressed (so 20 MB of text is a file of about 25 KB). What the security review sent to extract.
 */
export async function invisibleTextPdf(textBytesPerPage: number, pages = 1): Promise<Uint8Array> {
  // Lines of about 6 pt by 0.012 pt, one under the other: all of it lies on the page (pdfjs drops text off it).
  const line = `(${'Invisible words repeated. '.repeat(40)}) Tj T*\n`;
  const body = line.repeat(Math.ceil(textBytesPerPage / (line.length - 10)));
  return contentStreamPdf(`BT /F1 0.01 Tf 0.012 TL 10 700 Td\n${body}ET\n`, pages);
}

/**
 * A page whose content stream decompresses to `inflatedBytes` of drawing operators that draw nothing (`q Q`):
 * a decompression bomb with no text in it.
 */
export async function inflationBombPdf(inflatedBytes: number): Promise<Uint8Array> {
  return contentStreamPdf('q Q\n'.repeat(Math.ceil(inflatedBytes / 4)), 1);
}

async function contentStreamPdf(content: string, pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const stream = doc.context.register(
    doc.context.stream(deflateSync(Buffer.from(content, 'latin1'), { level: 9 }), { Filter: 'FlateDecode' }),
  );
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage(LETTER);
    page.node.setFontDictionary(PDFName.of('F1'), font.ref);
    page.node.set(PDFName.of('Contents'), stream);
  }
  return doc.save({ useObjectStreams: false });
}
