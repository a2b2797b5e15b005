import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';

/**
 * The payloads of test/support/pdf-bombs.ts: zeros deflated, LZW-coded or Brotli-compressed far past their size
 * (big ones cached on disk), and image headers that claim huge dimensions.
 */

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
export const latin1 = (s: string) => Buffer.from(s, 'latin1');
const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'switchboard-pdf-bombs');

/** Text drawn before the payload: a reader that decodes the whole stream shows `BOMB`. */
export const MARKER = 'BT /F1 12 Tf 72 700 Td (BOMB) Tj ET\n';

/**
 * 1,659 bytes of Brotli holding the marker and 2 GiB of zeros (quality 5, 16 MiB window): the payload of the incident
 * file (2,192 bytes as sent; this one is written as a 2,260-byte PDF). Kept as bytes: compressing 2 GiB takes a minute.
 */
export const BROTLI_2_GIB = Buffer.from(
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
export async function deflateRepeated(prefix: Buffer, pattern: Buffer, total: number): Promise<Buffer> {
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

export function cached(key: string, onDisk: boolean, make: () => Promise<Buffer>): Promise<Buffer> {
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
