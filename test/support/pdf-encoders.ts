import { brotliCompressSync, constants, deflateSync } from 'node:zlib';

/**
 * Encoders for every PDF filter pdfjs decodes without an image codec, so a test can build a stream under any filter
 * chain: `/Filter [/A /B]` decodes A then B, so the data is encoded with B, then A ({@link encodeChain}).
 */
export type FilterName =
  | 'FlateDecode'
  | 'LZWDecode'
  | 'ASCIIHexDecode'
  | 'ASCII85Decode'
  | 'RunLengthDecode'
  | 'BrotliDecode';

export const FILTERS: FilterName[] = [
  'FlateDecode',
  'LZWDecode',
  'ASCIIHexDecode',
  'ASCII85Decode',
  'RunLengthDecode',
  'BrotliDecode',
];

/** The short names pdfjs also accepts (inline image abbreviations, valid in any stream for pdfjs). */
export const ABBREVIATIONS: Partial<Record<FilterName, string>> = {
  FlateDecode: 'Fl',
  LZWDecode: 'LZW',
  ASCIIHexDecode: 'AHx',
  ASCII85Decode: 'A85',
  RunLengthDecode: 'RL',
};

/** Filters that shrink a run of zeros (the ones a bomb's innermost layer can use). */
export const COMPRESSING: FilterName[] = ['FlateDecode', 'LZWDecode', 'RunLengthDecode', 'BrotliDecode'];

export function encode(filter: FilterName, data: Uint8Array): Buffer {
  switch (filter) {
    case 'FlateDecode':
      return deflateSync(data, { level: 9 });
    case 'BrotliDecode':
      return brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
    case 'ASCIIHexDecode':
      return Buffer.from(`${Buffer.from(data).toString('hex')}>`, 'latin1');
    case 'ASCII85Decode':
      return ascii85(data);
    case 'RunLengthDecode':
      return runLength(data);
    case 'LZWDecode':
      return lzw(data);
  }
}

/** The data `/Filter [filters...]` decodes to `data`. */
export function encodeChain(filters: FilterName[], data: Uint8Array): Buffer {
  let out: Buffer = Buffer.from(data);
  for (let i = filters.length - 1; i >= 0; i--) out = encode(filters[i]!, out);
  return out;
}

function ascii85(data: Uint8Array): Buffer {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const chunk = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0, data[i + 3] ?? 0];
    const n = Math.min(4, data.length - i);
    let value = ((chunk[0]! << 24) | (chunk[1]! << 16) | (chunk[2]! << 8) | chunk[3]!) >>> 0;
    if (n === 4 && value === 0) {
      out += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let d = 0; d < 5; d++) {
      digits.unshift(String.fromCharCode(33 + (value % 85)));
      value = Math.floor(value / 85);
    }
    out += digits.slice(0, n + 1).join('');
  }
  return Buffer.from(`${out}~>`, 'latin1');
}

/** Runs of up to 128 equal bytes as a repeat, the rest as literals of up to 128. */
function runLength(data: Uint8Array): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < data.length) {
    let run = 1;
    while (run < 128 && i + run < data.length && data[i + run] === data[i]) run++;
    if (run > 1) {
      out.push(257 - run, data[i]!);
      i += run;
      continue;
    }
    const start = i;
    while (i < data.length && i - start < 128 && !(i + 1 < data.length && data[i + 1] === data[i])) i++;
    if (i === start) i++;
    out.push(i - start - 1, ...data.subarray(start, i));
  }
  out.push(128);
  return Buffer.from(out);
}

/** LZW as PDF writes it: 9 to 12-bit codes, most significant bit first, EarlyChange 1, a clear code when full. */
function lzw(data: Uint8Array): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const write = (code: number, length: number) => {
    acc = acc * 2 ** length + code;
    bits += length;
    while (bits >= 8) {
      bits -= 8;
      out.push(Math.floor(acc / 2 ** bits) & 0xff);
      acc %= 2 ** bits;
    }
  };
  let table = new Map<string, number>();
  let next = 258;
  let length = 9;
  const reset = () => {
    table = new Map();
    next = 258;
    length = 9;
  };
  write(256, length);
  let prefix = '';
  for (const byte of data) {
    const key = `${prefix},${byte}`;
    if (prefix && table.has(key)) {
      prefix = key;
      continue;
    }
    if (prefix) {
      write(codeOf(prefix, table), length);
      table.set(key, next++);
      // EarlyChange 1: the code length grows one code early.
      if (next + 1 > 2 ** length && length < 12) length++;
      if (next >= 4094) {
        write(256, length);
        reset();
      }
    }
    prefix = `${byte}`;
  }
  if (prefix) write(codeOf(prefix, table), length);
  write(257, length);
  if (bits > 0) write(0, 8 - bits);
  return Buffer.from(out);
}

function codeOf(prefix: string, table: Map<string, number>): number {
  return prefix.includes(',') ? table.get(prefix)! : Number(prefix);
}
