import { brotliCompressSync, constants, deflateSync } from 'node:zlib';
import { DecodeBudget, DecodeLimitError, orphanDecodes } from './decode-budget.ts';
import { type PdfjsInternals, probeTools, ZLIB_PROBE } from './pdfjs-internals.ts';

/** The decode bound proves itself at start-up (./decode-bound.ts): small bombs through every patched path. */

/**
 * Decodes small bombs through each patched path under a 256 KiB budget and throws unless every one is refused; a
 * decode outside any budget must be refused too, and a small stream must still decode.
 */
export async function selfTest(internals: PdfjsInternals): Promise<void> {
  const tools = probeTools(internals);
  const zeros = Buffer.alloc(2 * 1024 * 1024);
  const flate = new Uint8Array(deflateSync(zeros));
  const brotli = new Uint8Array(brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }));
  const image = (subtype: string) => tools.object(`<< /Subtype /Image /Width 8 /Height 8 ${subtype} >>`);
  const jpegFrame = new Uint8Array([
    0xff, 0xd8, 0xff, 0xc0, 0, 17, 8, 0xea, 0x60, 0xea, 0x60, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9,
  ]);
  const jpxSiz = new Uint8Array([
    0xff, 0x4f, 0xff, 0x51, 0, 41, 0, 0, 0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xea, 0x60,
    0, 0, 0xea, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7, 1, 1, 0xff, 0xd9,
  ]);
  const jbig2Page = new Uint8Array([
    0, 0, 0, 0, 48, 0, 1, 0, 0, 0, 19, 0x40, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  ]);
  const hexOfFlate = Buffer.from(`${Buffer.from(flate).toString('hex')}>`, 'latin1');
  const cases: [string, () => unknown][] = [
    ['flate (JavaScript)', () => tools.filter('FlateDecode', flate).getBytes()],
    ['flate (native)', () => tools.filter('FlateDecode', flate).asyncGetBytes!()],
    ['brotli (JavaScript)', () => tools.filter('BrotliDecode', brotli).getBytes()],
    ['brotli (native)', () => tools.filter('BrotliDecode', brotli).asyncGetBytes!()],
    ['runlength', () => tools.filter('RunLengthDecode', Buffer.alloc(64 * 1024, Buffer.from([0x81, 0]))).getBytes()],
    ['lzw', () => tools.filter('LZWDecode', lzwZeros()).getBytes()],
    ['ASCIIHex then Flate', () => tools.filter('Fl', tools.filter('AHx', hexOfFlate)).getBytes()],
    [
      'predictor columns',
      () =>
        tools
          .filter('FlateDecode', ZLIB_PROBE, null, tools.object('<< /Predictor 12 /Columns 100000000 >>'))
          .getBytes(),
    ],
    ['jpeg frame size', () => tools.filter('DCTDecode', jpegFrame, image('')).getBytes()],
    ['jpeg 2000 size', () => tools.filter('JPXDecode', jpxSiz, image('')).decodeImage(null, 0, {})],
    ['jbig2 page size', () => tools.filter('JBIG2Decode', jbig2Page, image('')).decodeImage(null, 0, {})],
    [
      'ccitt columns and rows',
      () =>
        tools
          .filter(
            'CCITTFaxDecode',
            new Uint8Array(16),
            image(''),
            tools.object('<< /K -1 /Columns 1000000 /Rows 1000000 >>'),
          )
          .decodeImage(null, 0, {}),
    ],
    ['unknown filter', () => tools.filter('Foo', flate)],
    ['image read past its length', () => tools.filter('FlateDecode', flate, image('')).getImageData(1000, {})],
    // Read as content, a stream is held to the stream limit whatever its dictionary claims.
    [
      'content with an image dictionary',
      () => tools.filter('FlateDecode', flate, image('/BitsPerComponent 8')).getBytes(),
    ],
  ];
  // Images get a larger limit than streams here, so the case above shows which one applied.
  const limits = { maxStreamBytes: 256 * 1024, maxImageBytes: 4 * 1024 * 1024, maxPageBytes: 8 * 1024 * 1024 };
  const failures: string[] = [];
  for (const [label, run] of cases) {
    const budget = new DecodeBudget(limits);
    let outcome: unknown = 'decoded';
    try {
      await budget.run(async () => run());
    } catch (error) {
      outcome = error;
    }
    if (!(outcome instanceof DecodeLimitError)) failures.push(`${label}: not refused (${String(outcome)})`);
    else if (label === 'content with an image dictionary' && outcome.kind !== 'stream')
      failures.push(`${label}: refused as ${outcome.kind}, not under the stream limit`);
  }
  const before = orphanDecodes.count;
  try {
    tools.filter('FlateDecode', flate).getBytes();
    failures.push('a decode outside any budget: not refused');
  } catch (error) {
    if (!(error instanceof DecodeLimitError)) throw error;
    orphanDecodes.count = before; // this one was on purpose
  }
  const small = new DecodeBudget().run(() =>
    Buffer.from(tools.filter('FlateDecode', ZLIB_PROBE).getBytes()).toString('latin1'),
  );
  if (small !== 'probe') failures.push(`a small Flate stream decoded to "${small}"`);
  if (failures.length)
    throw new Error(`pdfjs decode bound self-test failed, the bound is not active: ${failures.join('; ')}`);
}

/** LZW (EarlyChange 1) of a zero, then codes 258..4095 (runs of 2..3839 zeros), then code 4095 200 times: ~8 MB. */
function lzwZeros(): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let length = 9;
  let next = 258;
  let first = true;
  const emit = (code: number) => {
    acc = acc * 2 ** length + code;
    bits += length;
    while (bits >= 8) {
      bits -= 8;
      out.push(Math.floor(acc / 2 ** bits) & 0xff);
      acc %= 2 ** bits;
    }
    if (!first) {
      next++;
      if (((next + 1) & next) === 0) length = Math.min(Math.log2(next + 1) + 1, 12);
    }
    first = false;
  };
  emit(0);
  while (next < 4095) emit(next);
  for (let i = 0; i < 200; i++) emit(4095);
  emit(257);
  if (bits > 0) out.push((acc * 2 ** (8 - bits)) & 0xff);
  return new Uint8Array(out);
}
