import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, createDeflate, deflateSync } from 'node:zlib';
import { onePage, pdfStream, writePdf } from './pdf-writer.ts';

/**
 * Adversarial PDFs: every way known to make pdfjs produce far more bytes, or work, than the file holds (ported from the research session's generators). Each is valid enough that pdfjs decodes the payload on its normal
 * path: page content for the text layer, an image for the operator list or rendering, the cross-reference data or an
 * object stream when the file is opened. The page text starts with `BOMB`: a reader that decodes the whole stream
 * answers it.
 *
 * `decoded` is the payload's decoded size; the defaults pass every limit of shared/pdf/decode-budget.ts by 4× or more
 * and build in well under a second; bench/pdf-bombs.ts asks for 1 GiB. Big payloads are cached on disk.
 */
export interface PdfBomb {
  name: string;
  /** What pdfjs does with it, and what the scan before the decode bound did. */
  description: string;
  /** Which pdfjs step decodes it: opening (`open`), the text layer (`text`) or the drawing (`ops`). */
  bites: 'open' | 'text' | 'ops';
  make(options?: { decoded?: number }): Promise<Buffer>;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const latin1 = (s: string) => Buffer.from(s, 'latin1');
const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'switchboard-pdf-bombs');

/** Text drawn before the payload: a reader that decodes the whole stream shows `BOMB`. */
export const MARKER = 'BT /F1 12 Tf 72 700 Td (BOMB) Tj ET\n';

/**
 * 1,659 bytes of Brotli holding the marker and 2 GiB of zeros (quality 5, 16 MiB window): the payload of the incident
 * file (2,192 bytes as sent; this one is written as a 2,260-byte PDF). Kept as bytes: compressing 2 GiB takes a minute.
 */
const BROTLI_2_GIB = Buffer.from(
  'z///fwAE/vMmK+lFkjtFv41myg/RBHFiIFN5/x+iLcc7eozOMEOXEmdHRZ+pnPj//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8ASADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8ASADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8ASADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8ASADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge//P//9/ACQA4rAAdO//+f//D4AEQBwWgO79P////wGQAIjDAtC9/+f//z8AEgBxWAC69//8//8HQAIgDgtA9/6f////AEgAxGEB6N7/8///HwAJgDgsAN37f/7//wMgARCHBaB7/8///38AJADisAB07//5//8PgARAHBaA7v0/////AZAAiMMC0L3/5///PwASAHFYALr3//z//wdAAiAOC0D3/p////8ASADEYQHo3v/z//8fAAmAOCwA3ft//v//AyABEIcFoHv/z///fwAkAOKwAHTv//n//w+ABEAcFoDu/T////8BkACIwwLQvf/n//8/ABIAcVgAuvf//P//B0ACIA4LQPf+n////wBIAMRhAeje//P//x8ACYA4LADd+3/+//8DIAEQhwWge/8fIwAAJACiiAAM',
  'base64',
);

/** Deflate of `prefix` then `zeros` zero bytes (level 9), in 16 MiB steps; cached on disk above 256 MiB. */
export async function deflatedZeros(zeros: number, prefix = MARKER): Promise<Buffer> {
  return cached(`deflate:${zeros}:${prefix}`, zeros > 256 * MiB, () =>
    deflateRepeated(latin1(prefix), Buffer.alloc(1), zeros),
  );
}

/** Deflate of `prefix` then `pattern` repeated to `total` bytes. */
async function deflateRepeated(prefix: Buffer, pattern: Buffer, total: number): Promise<Buffer> {
  if (total <= 64 * MiB) {
    const body = Buffer.alloc(total);
    if (pattern.some((b) => b !== 0)) for (let at = 0; at < total; at += pattern.length) pattern.copy(body, at);
    return deflateSync(Buffer.concat([prefix, body]), { level: 9 });
  }
  const z = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((resolve, reject) => z.on('end', resolve).on('error', reject));
  z.write(prefix);
  const chunk = Buffer.alloc(16 * MiB - ((16 * MiB) % pattern.length));
  if (pattern.some((b) => b !== 0)) for (let at = 0; at < chunk.length; at += pattern.length) pattern.copy(chunk, at);
  for (let left = total; left > 0; left -= chunk.length) {
    if (!z.write(chunk.subarray(0, Math.min(left, chunk.length)))) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await ended;
  return Buffer.concat(out);
}

const memory = new Map<string, Promise<Buffer>>();

function cached(key: string, onDisk: boolean, make: () => Promise<Buffer>): Promise<Buffer> {
  let entry = memory.get(key);
  if (entry) return entry;
  entry = (async () => {
    const file = join(CACHE, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.bin`);
    if (onDisk && existsSync(file)) return readFileSync(file);
    const bytes = await make();
    if (onDisk) {
      mkdirSync(CACHE, { recursive: true });
      writeFileSync(file, bytes);
    }
    return bytes;
  })();
  memory.set(key, entry);
  return entry;
}

/** LZW (PDF flavour: EarlyChange 1, most significant bit first) of `prefix` then about `total` zeros, no clear code. */
export function lzwZeros(total: number, prefix = MARKER): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let codeLength = 9;
  let nextCode = 258;
  let hasPrevious = false;
  const write = (code: number, length: number) => {
    acc = acc * 2 ** length + code;
    bits += length;
    while (bits >= 8) {
      bits -= 8;
      out.push(Math.floor(acc / 2 ** bits) & 0xff);
      acc %= 2 ** bits;
    }
  };
  // As pdfjs decodes: a code is read at the current length; then, after the first, an entry is added and the
  // length may grow.
  const emit = (code: number) => {
    write(code, codeLength);
    if (hasPrevious) {
      nextCode++;
      const n = nextCode + 1;
      if ((n & (n - 1)) === 0) codeLength = Math.min(Math.floor(Math.log2(n)) + 1, 12);
    }
    hasPrevious = true;
  };
  for (const byte of latin1(prefix)) emit(byte);
  emit(0);
  let run = 1;
  let produced = 1;
  let longest = 0;
  while (produced < total && nextCode < 4095) {
    longest = nextCode;
    emit(nextCode); // the previous run and one more zero
    run++;
    produced += run;
  }
  while (produced < total) {
    emit(longest);
    produced += run;
  }
  write(257, codeLength); // end of data
  if (bits > 0) write(0, 8 - bits);
  return Buffer.from(out);
}

/** A 16×16 baseline JPEG whose frame header (SOF0) {@link hugeJpeg} rewrites. */
const SMALL_JPEG =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAf/xAAeEAACAQMFAAAAAAAAAAAAAAARExUAB2ECFyVEYv/EABQBAQAAAAAAAAAAAAAAAAAAAAD/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCqX0u5tXCcJKyT+2ha1+NRLMAZpYu7m6k3wkVGo7b2MZ40gLyTil9LR7qQnNxUa/qPYxfvSAvJOKWLtHtXN83KySOoha2e9RLMAZoP/9k=';

/** A JPEG whose frame header claims `width` × `height` (the image dictionary can say 16×16). */
export function hugeJpeg(width: number, height: number): Buffer {
  const jpeg = Buffer.from(SMALL_JPEG, 'base64');
  for (let i = 2; i < jpeg.length - 8; i++) {
    if (jpeg[i] === 0xff && jpeg[i + 1] === 0xc0) {
      jpeg.writeUInt16BE(height, i + 5);
      jpeg.writeUInt16BE(width, i + 7);
      return jpeg;
    }
  }
  throw new Error('no SOF0 in the sample JPEG');
}

/** A JPEG 2000 codestream whose SIZ marker claims `width` × `height`, one 8-bit component, one tile, empty packets. */
export function hugeJ2k(width: number, height: number): Buffer {
  const u16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
  const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  const levels = 5;
  return Buffer.from([
    ...[0xff, 0x4f], // SOC
    ...[0xff, 0x51, ...u16(41), ...u16(0), ...u32(width), ...u32(height), ...u32(0), ...u32(0)], // SIZ
    ...[...u32(width), ...u32(height), ...u32(0), ...u32(0), ...u16(1), 7, 1, 1],
    ...[0xff, 0x52, ...u16(12), 0, 0, ...u16(1), 0, levels, 4, 4, 0, 1], // COD
    ...[0xff, 0x5c, ...u16(3 + 3 * levels + 1), 0x40, ...new Array(3 * levels + 1).fill(0x48)], // QCD
    ...[0xff, 0x90, ...u16(10), ...u16(0), ...u32(0), 0, 1], // SOT
    ...[0xff, 0x93, ...new Array(64).fill(0)], // SOD
    ...[0xff, 0xd9], // EOC
  ]);
}

/** An embedded JBIG2 stream: page information claiming `width` × `height`, a generic region, end of page. */
export function hugeJbig2(width: number, height: number): Buffer {
  const segment = (num: number, type: number, data: Buffer) => {
    const header = Buffer.alloc(11);
    header.writeUInt32BE(num, 0);
    header[4] = type;
    header[6] = 1; // page 1
    header.writeUInt32BE(data.length, 7);
    return Buffer.concat([header, data]);
  };
  const page = Buffer.alloc(19);
  page.writeUInt32BE(width, 0);
  page.writeUInt32BE(height, 4);
  const region = Buffer.alloc(26);
  region.writeUInt32BE(width, 0);
  region.writeUInt32BE(height, 4);
  for (const [at, v] of [
    [18, 3],
    [19, -1],
    [20, -3],
    [21, -1],
    [22, 2],
    [23, -2],
    [24, -2],
    [25, -2],
  ] as const)
    region.writeInt8(v, at);
  return Buffer.concat([
    segment(0, 48, page),
    segment(1, 38, Buffer.concat([region, Buffer.from([0xff, 0xac, 0, 0, 0, 0])])),
    segment(2, 49, Buffer.alloc(0)),
  ]);
}

// Standard security handler, revision 2 (RC4, 40-bit key), empty passwords: the file opens without one.
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const md5 = (...parts: Uint8Array[]) => {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const S = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + S[i]! + key[i % key.length]!) & 0xff;
    [S[i], S[j]] = [S[j]!, S[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + S[i]!) & 0xff;
    [S[i], S[j]] = [S[j]!, S[i]!];
    out[n] = data[n]! ^ S[(S[i]! + S[j]!) & 0xff]!;
  }
  return out;
}

/** One page whose content stream is `content` (already encoded) under `dict` (its `/Filter`...). */
export function pageWithContent(dict: string, content: Uint8Array): Buffer {
  return writePdf([...onePage(), pdfStream(dict, content)]);
}

/** One page that paints the image XObject `/Im1` (object 6) over the page. */
function pageWithImage(imageDict: string, data: Uint8Array): Buffer {
  return writePdf([
    ...onePage('5 0 R', '/XObject << /Im1 6 0 R >>'),
    pdfStream('', latin1(`${MARKER}q 600 0 0 780 6 6 cm /Im1 Do Q\n`)),
    pdfStream(`/Type /XObject /Subtype /Image ${imageDict}`, data),
  ]);
}

const hex = (bytes: Uint8Array) => latin1(`${Buffer.from(bytes).toString('hex')}>`);

/** The Brotli PDF: 2 GiB of decoded zeros from about 2 KB (or `decoded` bytes, compressed here). */
export async function brotliBombPdf(decoded?: number): Promise<Buffer> {
  const payload =
    decoded === undefined
      ? BROTLI_2_GIB
      : await cached(`brotli:${decoded}`, false, async () =>
          brotliCompressSync(Buffer.concat([latin1(MARKER), Buffer.alloc(decoded)]), {
            params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 24 },
          }),
        );
  return pageWithContent('/Filter /BrotliDecode', payload);
}

const streamBomb = 64 * MiB;

/** Every adversarial file, by name. */
export const PDF_BOMBS: PdfBomb[] = [
  {
    name: 'brotli',
    bites: 'text',
    description: 'content stream /BrotliDecode: 1.7 KB of Brotli holding 2 GiB of zeros (the incident file)',
    make: (o) => brotliBombPdf(o?.decoded),
  },
  {
    name: 'flate-abbreviated',
    bites: 'text',
    description: '/Filter /Fl, the abbreviation of FlateDecode (the text scan looked for /FlateDecode)',
    make: async (o) => pageWithContent('/Filter /Fl', await deflatedZeros(o?.decoded ?? streamBomb)),
  },
  {
    name: 'flate-name-escape',
    bites: 'text',
    description: '/Filter /Flat#65Decode: a #xx escape inside the name',
    make: async (o) => pageWithContent('/Filter /Flat#65Decode', await deflatedZeros(o?.decoded ?? streamBomb)),
  },
  {
    name: 'flate-indirect-filter',
    bites: 'text',
    description: '/Filter 6 0 R, object 6 being /FlateDecode: the name is not in the stream dictionary',
    make: async (o) =>
      writePdf([
        ...onePage(),
        pdfStream('/Filter 6 0 R', await deflatedZeros(o?.decoded ?? streamBomb)),
        '/FlateDecode',
      ]),
  },
  {
    name: 'flate-padded-dict',
    bites: 'text',
    description: 'the stream dictionary padded past 4 KB after /Filter /FlateDecode (the scan looked 4 KB back)',
    make: async (o) =>
      pageWithContent(`/Filter /FlateDecode /Pad (${'x'.repeat(6000)})`, await deflatedZeros(o?.decoded ?? streamBomb)),
  },
  {
    name: 'chain-hex-flate',
    bites: 'text',
    description: '/Filter [/ASCIIHexDecode /FlateDecode]: the Flate data is hex text',
    make: async (o) =>
      pageWithContent('/Filter [/ASCIIHexDecode /FlateDecode]', hex(await deflatedZeros(o?.decoded ?? streamBomb))),
  },
  {
    name: 'chain-flate-flate',
    bites: 'text',
    description: '/Filter [/FlateDecode /FlateDecode]: two layers, a few KB',
    make: async (o) =>
      pageWithContent(
        '/Filter [/FlateDecode /FlateDecode]',
        deflateSync(await deflatedZeros(o?.decoded ?? streamBomb), { level: 9 }),
      ),
  },
  {
    name: 'lzw',
    bites: 'text',
    description: '/LZWDecode: 12-bit codes each standing for about 3,800 zeros',
    make: async (o) => pageWithContent('/Filter /LZWDecode', lzwZeros(o?.decoded ?? streamBomb)),
  },
  {
    name: 'runlength',
    bites: 'text',
    description: '/Filter [/FlateDecode /RunLengthDecode]: 128-byte runs, deflated',
    make: async (o) => {
      const marker = latin1(MARKER);
      const literal = Buffer.concat([Buffer.from([marker.length - 1]), marker]);
      const runs = Math.ceil((o?.decoded ?? streamBomb) / 128);
      const data = await cached(`rl:${runs}`, runs * 2 > 256 * MiB, () =>
        deflateRepeated(literal, Buffer.from([0x81, 0x00]), runs * 2),
      );
      return pageWithContent('/Filter [/FlateDecode /RunLengthDecode]', data);
    },
  },
  {
    name: 'predictor-columns',
    bites: 'text',
    description: '/DecodeParms << /Predictor 12 /Columns 250000000 >>: row buffers sized from /Columns',
    make: async () =>
      pageWithContent(
        '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 250000000 >>',
        deflateSync(Buffer.concat([Buffer.from([2]), Buffer.alloc(1000)])),
      ),
  },
  {
    name: 'predictor-tiff-colors',
    bites: 'text',
    description: '/DecodeParms << /Predictor 2 /Colors 60 /BitsPerComponent 16 /Columns 1000000 >>',
    make: async () =>
      pageWithContent(
        '/Filter /FlateDecode /DecodeParms << /Predictor 2 /Colors 60 /BitsPerComponent 16 /Columns 1000000 >>',
        deflateSync(Buffer.alloc(1000)),
      ),
  },
  {
    name: 'operator-flood',
    bites: 'text',
    description: 'a 12 MiB content stream (under the stream limit) of `q Q`: 3 M operators, no text',
    make: async (o) => {
      const size = o?.decoded ?? 12 * MiB;
      const data = await cached(`qq:${size}`, false, () => deflateRepeated(latin1(MARKER), latin1('q Q\n'), size));
      return pageWithContent('/Filter /FlateDecode', data);
    },
  },
  {
    name: 'contents-array-repeat',
    bites: 'text',
    description: '/Contents [6 0 R × 2000]: one 12 MiB stream (under the stream limit) listed 2,000 times (24 GiB)',
    make: async () =>
      writePdf([
        ...onePage('5 0 R'),
        `[${new Array(2000).fill('6 0 R').join(' ')}]`,
        pdfStream('/Filter /FlateDecode', await deflatedZeros(12 * MiB)),
      ]),
  },
  {
    name: 'form-fanout',
    bites: 'text',
    description: 'a 12 MiB form XObject (under the stream limit) drawn 10,000 times from a 17 KB file',
    make: async () => {
      const form = pdfStream(
        '/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Filter /FlateDecode',
        await deflatedZeros(12 * MiB, 'BT /F1 1 Tf (f) Tj ET\n'),
      );
      const page = deflateSync(latin1(`${MARKER}${'/Fm1 Do\n'.repeat(10000)}`));
      return writePdf([
        ...onePage('5 0 R', '/XObject << /Fm1 6 0 R >>'),
        pdfStream('/Filter /FlateDecode', page),
        form,
      ]);
    },
  },
  {
    name: 'inline-image',
    bites: 'ops',
    description: 'an inline image 6000×6000 grey (BI /F /Fl … ID … EI) whose data inflates past its size',
    make: async (o) => {
      const data = await deflatedZeros(o?.decoded ?? 128 * MiB, '');
      const content = Buffer.concat([
        latin1(`${MARKER}q 100 0 0 100 0 0 cm BI /W 6000 /H 6000 /BPC 8 /CS /G /F /Fl ID\n`),
        data,
        latin1('\nEI Q\n'),
      ]);
      return writePdf([...onePage(), pdfStream('', content)]);
    },
  },
  {
    name: 'image-flate',
    bites: 'ops',
    description: 'an image XObject 6000×6000 RGB, /FlateDecode, inflating past the image limit',
    make: async (o) =>
      pageWithImage(
        '/Width 6000 /Height 6000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode',
        await deflatedZeros(o?.decoded ?? 128 * MiB, ''),
      ),
  },
  {
    name: 'image-jpeg-frame',
    bites: 'ops',
    description: 'DCT image: the dictionary says 16×16, the JPEG frame header 30000×30000',
    make: async () =>
      pageWithImage(
        '/Width 16 /Height 16 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode',
        hugeJpeg(30000, 30000),
      ),
  },
  {
    name: 'image-jpx-size',
    bites: 'ops',
    description: 'JPX image: the dictionary says 1×1, the SIZ marker 60000×60000',
    make: async () => pageWithImage('/Width 1 /Height 1 /BitsPerComponent 8 /Filter /JPXDecode', hugeJ2k(60000, 60000)),
  },
  {
    name: 'image-jbig2-page',
    bites: 'ops',
    description: 'JBIG2 image: the dictionary says 6000×6000, the page information 2^30 × 2^30',
    make: async () =>
      pageWithImage('/Width 6000 /Height 6000 /ImageMask true /Filter /JBIG2Decode', hugeJbig2(2 ** 30, 2 ** 30)),
  },
  {
    name: 'image-ccitt-size',
    bites: 'ops',
    description: 'CCITT image: /DecodeParms << /K -1 /Columns 1000000 /Rows 1000000 >>',
    make: async () =>
      pageWithImage(
        '/Width 6000 /Height 6000 /ImageMask true /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 1000000 /Rows 1000000 >>',
        Buffer.alloc(4096),
      ),
  },
  {
    name: 'encrypted-flate',
    bites: 'text',
    description: 'an RC4-encrypted file (empty password): the Flate bomb is ciphertext in the file',
    make: async (o) => {
      const id = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
      const O = rc4(md5(PAD).subarray(0, 5), PAD);
      const p = Buffer.alloc(4);
      p.writeInt32LE(-4);
      const key = md5(PAD, O, p, id).subarray(0, 5);
      const U = rc4(key, PAD);
      const objectKey = md5(key, Buffer.from([5, 0, 0, 0, 0])).subarray(0, 10);
      const data = rc4(objectKey, await deflatedZeros(o?.decoded ?? streamBomb));
      return writePdf([...onePage(), pdfStream('/Filter /FlateDecode', data)], {
        trailer:
          `/Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /O <${O.toString('hex')}> /U <${U.toString('hex')}> /P -4 >> ` +
          `/ID [<${id.toString('hex')}> <${id.toString('hex')}>] `,
      });
    },
  },
  {
    name: 'object-stream',
    bites: 'open',
    description:
      'catalog and pages inside an /ObjStm whose tail inflates past the limit (decoded whole for its last member)',
    make: async (o) => {
      const decoded = o?.decoded ?? streamBomb;
      const objects = onePage();
      let header = '';
      let data = '';
      objects.forEach((body, i) => {
        header += `${i + 1} ${data.length} `;
        data += `${body}\n`;
      });
      header += '\n';
      const encoded = await cached(`objstm:${decoded}`, decoded > 256 * MiB, () =>
        deflateRepeated(latin1(header + data), Buffer.alloc(1), decoded),
      );
      return writePdf([...objects, pdfStream('', latin1(MARKER)), ''], {
        compressed: { objStm: 6, members: [1, 2, 3, 4], encoded, first: header.length },
      });
    },
  },
  {
    name: 'xref-stream-entries',
    bites: 'open',
    description: 'a cross-reference stream declaring 100 M entries (one JavaScript object each in pdfjs)',
    make: async (o) => {
      const extra = o?.decoded ?? 100_000_000;
      const head = writePdf([...onePage(), pdfStream('', latin1(MARKER))], { xref: 'table' });
      const body = head.subarray(0, head.indexOf(latin1('xref\n')));
      const entries = Buffer.alloc(7 * 7);
      entries.writeUInt16BE(0xffff, 5);
      for (let num = 1; num <= 5; num++) {
        entries[num * 7] = 1;
        entries.writeUInt32BE(
          num === 1 ? body.indexOf(latin1('1 0 obj\n')) : body.indexOf(latin1(`\n${num} 0 obj\n`)) + 1,
          num * 7 + 1,
        );
      }
      entries[6 * 7] = 1;
      entries.writeUInt32BE(body.length, 6 * 7 + 1);
      const data = await cached(`xref:${extra}`, true, () => deflateRepeated(entries, Buffer.alloc(1), extra * 7));
      const xref = pdfStream(`/Type /XRef /Size ${7 + extra} /W [1 4 2] /Root 1 0 R /Filter /FlateDecode`, data);
      return Buffer.concat([body, latin1('6 0 obj\n'), xref, latin1(`\nendobj\nstartxref\n${body.length}\n%%EOF\n`)]);
    },
  },
];

/** The bomb called `name`. */
export function pdfBomb(name: string): PdfBomb {
  const bomb = PDF_BOMBS.find((b) => b.name === name);
  if (!bomb) throw new Error(`no PDF bomb called ${name}`);
  return bomb;
}

/** The files the issue measures: the Brotli PDF and each spelling the text scan missed. */
export const ISSUE_BOMBS = [
  'brotli',
  'flate-abbreviated',
  'flate-name-escape',
  'flate-indirect-filter',
  'flate-padded-dict',
];

export { GiB, MiB };
