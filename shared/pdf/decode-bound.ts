/**
 * The bound on what pdfjs-dist decodes, enforced inside pdfjs's own decoders (contract §15: budgets enforced where
 * bytes are decoded, not by scanning the file first; the scan it replaces missed `/Fl`, `/Flat#65Decode`, a `/Filter`
 * by reference, a dictionary past 4 KB, Brotli, LZW, RunLength, predictors and images).
 *
 * pdfjs decodes every filter in its worker module through classes it does not export: `Parser` (`makeFilter` turns a
 * `/Filter` name into a decoder), `DecodeStream` (base of every decoder: `ensureBuffer` grows the output of the
 * incremental ones, `asyncGetBytesFromDecompressionStream` runs Flate and Brotli natively), `BrotliStream` (one-shot
 * JavaScript Brotli) and the image decoders (`decodeImage`). This module:
 *
 * 1. reaches them once, at start-up, without copying or transforming pdfjs: a one-shot `lexer` setter on
 *    `Object.prototype` catches the first `Parser` pdfjs builds while a built-in three-object PDF is opened (its
 *    constructor does `this.lexer = lexer`). From that parser come the `Lexer` and `Stream` classes, and calling
 *    `makeFilter` once per filter name gives an instance, hence the prototype, of every decoder. Only property names
 *    are used, so it works minified and bundled.
 * 2. patches those prototypes: each growth of a decode buffer, each native inflate or Brotli run and each image decode
 *    is charged to the document's {@link DecodeBudget} before the allocation, and refused past its ceilings.
 *    `makeFilter` refuses filters whose decoder was not vetted here (unknown names, a filter a later pdfjs adds).
 * 3. proves it, failing closed: {@link installDecodeBound} ends with a self-test that decodes small bombs through
 *    every patched path and throws unless each one is refused, so a pdfjs that changed underneath stops the start.
 *
 * What it relies on in pdfjs (6.5.438, `TESTED_PDFJS_VERSIONS`) is listed in docs/decisions.md; the adversarial
 * files of test/support/pdf-bombs.ts must all be refused again on every pdfjs upgrade (test/unit/pdf/decode-bound.test.ts).
 */
import { brotliCompressSync, brotliDecompressSync, constants, deflateSync, inflateSync } from 'node:zlib';
import { currentBudget, activeBudget, DecodeBudget, DecodeLimitError, orphanDecodes } from './decode-budget.ts';
import { ccittBytes, type DictLike, jbig2Bytes, jpegSamples, jpxSamples, safeGet } from './image-sizes.ts';

/** pdfjs versions the adversarial corpus was run against with this module; others only log a warning. */
export const TESTED_PDFJS_VERSIONS = ['6.5.438'];

type Proto = Record<string, unknown>;

/** A pdfjs stream as the patches use it. */
interface PdfjsStream {
  dict?: DictLike;
  getBytes(length?: number): Uint8Array;
  reset(): void;
  isAsync?: boolean;
  asyncGetBytes?(): Promise<Uint8Array | null>;
}

/** A pdfjs `DecodeStream` (every decoder) as the patches use it. */
interface Decoder extends PdfjsStream {
  getImageData(length: number, options: unknown): Promise<Uint8Array>;
  buffer: Uint8Array;
  bufferLength: number;
  eof: boolean;
  stream?: PdfjsStream;
  bytes?: Uint8Array;
  params?: { Columns?: unknown; Rows?: unknown };
  decodeImage(bytes: Uint8Array | null, length: number, options: unknown): unknown;
}

/** The pdfjs internals found at start-up. */
interface PdfjsInternals {
  parserPrototype: Proto;
  Parser: new (args: { lexer: unknown; xref: unknown }) => { getObj(): unknown };
  Lexer: new (stream: unknown) => unknown;
  Stream: new (bytes: Uint8Array, start?: number, length?: number, dict?: unknown) => PdfjsStream;
  decodeStreamPrototype: Proto;
  /** Filter name → prototype of the decoder `makeFilter` returns for it (`#Predictor`: the predictor wrapper). */
  decoderPrototypes: Map<string, Proto>;
  nullStreamPrototype: Proto;
}

/** What the application gives to open the probe PDF: its own pdfjs, opened the way it opens documents. */
export interface PdfjsOpener {
  version: string;
  /** Opens `bytes` (a tiny valid PDF), reads its first page, and closes it. */
  openAndClose(bytes: Uint8Array): Promise<void>;
}

let installing: Promise<void> | undefined;

/**
 * Finds pdfjs's decoders, patches them and proves the patches work; once per process, before any untrusted PDF is
 * opened (a concurrent second call waits for the first). Rejects, and keeps rejecting, if any step fails: the caller
 * then refuses every PDF rather than read one unbounded.
 */
export function installDecodeBound(pdfjs: PdfjsOpener): Promise<void> {
  installing ??= (async () => {
    const internals = await new DecodeBudget().run(() => captureInternals(pdfjs));
    patch(internals);
    await selfTest(internals);
    if (!TESTED_PDFJS_VERSIONS.includes(pdfjs.version))
      console.warn(
        `pdfjs decode bound: pdfjs ${pdfjs.version} was not run against the adversarial corpus ` +
          `(tested: ${TESTED_PDFJS_VERSIONS.join(', ')}); its self-test passed.`,
      );
  })();
  return installing;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Reaching pdfjs's internals

/**
 * Opens the probe PDF while a one-shot `lexer` setter sits on `Object.prototype`. The setter behaves as a plain
 * assignment (it defines the property on the object) and removes itself as soon as it catches a pdfjs `Parser`
 * (recognised by its `makeFilter`), and in any case when the probe is closed: the window is one ~20 ms open.
 */
async function captureInternals(pdfjs: PdfjsOpener): Promise<PdfjsInternals> {
  const KEY = 'lexer';
  if (Object.getOwnPropertyDescriptor(Object.prototype, KEY))
    throw new Error('pdfjs decode bound: Object.prototype.lexer already exists; cannot install the capture hook.');
  let caught: { parser: object; lexer: { stream?: unknown } } | undefined;
  const remove = () => {
    if (Object.getOwnPropertyDescriptor(Object.prototype, KEY)?.set === setter) delete (Object.prototype as Proto)[KEY];
  };
  function setter(this: object, value: unknown) {
    Object.defineProperty(this, KEY, { value, writable: true, enumerable: true, configurable: true });
    if (!caught && typeof (this as Proto).makeFilter === 'function' && typeof (value as Proto)?.getObj === 'function') {
      caught = { parser: this, lexer: value as { stream?: unknown } };
      remove();
    }
  }
  Object.defineProperty(Object.prototype, KEY, { get: () => undefined, set: setter, configurable: true });
  try {
    await pdfjs.openAndClose(probePdf());
  } finally {
    remove();
  }
  if (!caught) throw new Error('pdfjs decode bound: pdfjs built no Parser while opening the probe PDF.');

  const parserPrototype = Object.getPrototypeOf(caught.parser) as Proto;
  const Parser = parserPrototype.constructor as PdfjsInternals['Parser'];
  const Lexer = (caught.lexer as { constructor: PdfjsInternals['Lexer'] }).constructor;
  const fileStream = caught.lexer.stream as { constructor: PdfjsInternals['Stream'] } | undefined;
  if (!fileStream) throw new Error('pdfjs decode bound: the Lexer has no `stream`.');
  const Stream = fileStream.constructor;
  const tools = probeTools({ parserPrototype, Parser, Lexer, Stream });
  const emptyDict = tools.object('<< >>');

  const decoderPrototypes = new Map<string, Proto>();
  const probes: [string[], Uint8Array][] = [
    [['Fl', 'FlateDecode'], ZLIB_PROBE],
    [['LZW', 'LZWDecode'], new Uint8Array([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01])],
    [['DCT', 'DCTDecode'], new Uint8Array([0xff, 0xd8, 0xff, 0xd9])],
    [['JPX', 'JPXDecode'], new Uint8Array([0xff, 0x4f, 0xff, 0xd9])],
    [['A85', 'ASCII85Decode'], Buffer.from('87cURD]i,"Ebo80~>', 'latin1')],
    [['AHx', 'ASCIIHexDecode'], Buffer.from('414243>', 'latin1')],
    [['CCF', 'CCITTFaxDecode'], new Uint8Array(4)],
    [['RL', 'RunLengthDecode'], new Uint8Array([2, 65, 66, 67, 128])],
    [['JBIG2Decode'], new Uint8Array(4)],
    [['BrotliDecode'], new Uint8Array([0x0b, 0x01, 0x80, 0x41, 0x42, 0x43, 0x03])],
  ];
  for (const [names, bytes] of probes) {
    for (const name of names) {
      const prototype = Object.getPrototypeOf(tools.filter(name, bytes, emptyDict)) as Proto;
      if (prototype === Stream.prototype)
        throw new Error(`pdfjs decode bound: makeFilter("${name}") returned the raw stream; is the filter gone?`);
      decoderPrototypes.set(name, prototype);
    }
  }
  const predictor = Object.getPrototypeOf(
    tools.filter('FlateDecode', ZLIB_PROBE, emptyDict, tools.object('<< /Predictor 12 /Columns 4 >>')),
  ) as Proto;
  if (predictor === decoderPrototypes.get('FlateDecode'))
    throw new Error('pdfjs decode bound: /Predictor 12 did not give a predictor stream.');
  decoderPrototypes.set('#Predictor', predictor);
  const nullStreamPrototype = Object.getPrototypeOf(tools.filter('FlateDecode', new Uint8Array(0), emptyDict)) as Proto;

  // DecodeStream: the prototype in the Flate decoder's chain that owns the native path (and ensureBuffer).
  let decodeStreamPrototype: Proto | null = decoderPrototypes.get('FlateDecode')!;
  while (decodeStreamPrototype && !Object.hasOwn(decodeStreamPrototype, 'asyncGetBytesFromDecompressionStream'))
    decodeStreamPrototype = Object.getPrototypeOf(decodeStreamPrototype) as Proto | null;
  if (!decodeStreamPrototype || !Object.hasOwn(decodeStreamPrototype, 'ensureBuffer'))
    throw new Error('pdfjs decode bound: DecodeStream (ensureBuffer, asyncGetBytesFromDecompressionStream) not found.');
  for (const [name, prototype] of decoderPrototypes)
    if (!Object.prototype.isPrototypeOf.call(decodeStreamPrototype, prototype))
      throw new Error(`pdfjs decode bound: the decoder for ${name} does not derive from DecodeStream.`);

  return {
    parserPrototype,
    Parser,
    Lexer,
    Stream,
    decodeStreamPrototype,
    decoderPrototypes,
    nullStreamPrototype,
  };
}

/** Builds pdfjs objects from text and decoders from bytes, with pdfjs's own classes. */
function probeTools(internals: Pick<PdfjsInternals, 'parserPrototype' | 'Parser' | 'Lexer' | 'Stream'>) {
  const { Parser, Lexer, Stream } = internals;
  const streamOf = (bytes: Uint8Array, dict: unknown = null) => new Stream(bytes, 0, bytes.length, dict);
  const object = (text: string) =>
    new Parser({ lexer: new Lexer(streamOf(Buffer.from(text, 'latin1'))), xref: null }).getObj();
  const parser = new Parser({ lexer: new Lexer(streamOf(new Uint8Array(1))), xref: null });
  const makeFilter = internals.parserPrototype.makeFilter as (...args: unknown[]) => Decoder;
  return {
    object,
    /** `makeFilter` on `stream` (or on new bytes with `dict`), as pdfjs calls it for a stream's `/Filter`. */
    filter(name: string, input: Uint8Array | PdfjsStream, dict: unknown = null, params: unknown = null): Decoder {
      const stream = input instanceof Uint8Array ? streamOf(input, dict) : input;
      const length = input instanceof Uint8Array ? input.length : null;
      return makeFilter.call(parser, stream, name, length, params);
    },
  };
}

/** A zlib stream of the word `probe`. */
const ZLIB_PROBE = new Uint8Array([0x78, 0x9c, 0x2b, 0x28, 0xca, 0x4f, 0x4a, 0x05, 0x00, 0x06, 0x7f, 0x02, 0x28]);

/** A one-page PDF with a classic cross-reference table: reading it makes pdfjs build a Parser. */
function probePdf(): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

// ---------------------------------------------------------------------------------------------------------------
// 2. The patches

/** Cross-reference stream dictionaries → the most their data may decode to (entries × entry width). */
const xrefStreamLimits = new WeakMap<object, number>();
/**
 * Decoders pdfjs reads as image data (`getImageData(length)`, called only by its image code) → the most they may
 * produce: the length pdfjs itself computed from the image's width, height and depth (it never reads more), within the
 * image limit. A stream is an image by how pdfjs reads it, not by what its dictionary says: a content stream given
 * `/Subtype /Image /Width 6000 /Height 6000` is still read as content, under the stream limit.
 */
const imageReads = new WeakMap<object, number>();

function isName(value: unknown, name: string): boolean {
  return (value as { name?: unknown } | null | undefined)?.name === name;
}

/** The ceiling of one decoder's output: an image read's, a cross-reference stream's, or the stream limit. */
function limitFor(stream: { dict?: DictLike }, budget: DecodeBudget): { limit: number; image: boolean } {
  const image = imageReads.get(stream);
  if (image !== undefined) return { limit: Math.min(image, 2 * budget.limits.maxImageBytes), image: true };
  const dict = stream.dict;
  const xref = dict ? xrefStreamLimits.get(dict) : undefined;
  if (xref !== undefined) return { limit: Math.min(xref, budget.limits.maxStreamBytes), image: false };
  return { limit: budget.limits.maxStreamBytes, image: false };
}

function patch(internals: PdfjsInternals): void {
  const decodeStream = internals.decodeStreamPrototype;
  const vetted = new Set<unknown>([...internals.decoderPrototypes.values(), internals.nullStreamPrototype]);
  patchImageReads([decodeStream, ...internals.decoderPrototypes.values()]);
  const boundedEnsureBuffer = patchEnsureBuffer(decodeStream);
  patchNativeDecode(decodeStream);
  patchBrotli(internals.decoderPrototypes.get('BrotliDecode')!);
  patchImageDecoders(internals.decoderPrototypes);
  patchMakeFilter(internals.parserPrototype, vetted, boundedEnsureBuffer);
  patchGetObj(internals.parserPrototype);
}

/**
 * `getImageData(length)` is how pdfjs reads an image's data (image XObjects, inline images, masks, soft masks): the
 * decoder is marked with the length pdfjs expects, and the decoders under it in a chain (`/Filter [/AHx /Fl]`) with
 * twice that (a hex layer is twice the image).
 */
function patchImageReads(prototypes: Proto[]): void {
  for (const prototype of new Set(prototypes)) {
    if (!Object.hasOwn(prototype, 'getImageData')) continue;
    const getImageData = prototype.getImageData as (this: Decoder, length: number, ...rest: unknown[]) => unknown;
    prototype.getImageData = function boundedImageRead(this: Decoder, length: number, ...rest: unknown[]) {
      const max = activeBudget()?.limits.maxImageBytes ?? 0;
      const expected = Number.isFinite(length) && length > 0 ? length : max;
      imageReads.set(this, Math.min(expected + 4096, max));
      for (
        let inner = this.stream as Decoder | undefined;
        inner && 'bufferLength' in inner;
        inner = inner.stream as Decoder
      )
        imageReads.set(inner, Math.min(2 * expected + 4096, 2 * max));
      return getImageData.call(this, length, ...rest);
    };
  }
}

/**
 * Incremental decoders (Flate in JavaScript, LZW, RunLength, ASCIIHex, ASCII85, predictors, decryption, a page's
 * concatenated `/Contents`) grow their output through `ensureBuffer`: each growth is charged before it is allocated.
 */
function patchEnsureBuffer(decodeStream: Proto): unknown {
  const original = decodeStream.ensureBuffer as (this: Decoder, requested: number) => Uint8Array;
  function boundedEnsureBuffer(this: Decoder, requested: number): Uint8Array {
    const before = this.buffer.byteLength;
    if (requested <= before) return original.call(this, requested);
    const budget = currentBudget();
    const { limit, image } = limitFor(this, budget);
    budget.charge(requested - before, requested, limit, image);
    const buffer = original.call(this, requested);
    // pdfjs rounds the allocation up to a power of two.
    budget.chargeSlack(Math.max(0, buffer.byteLength - requested), image);
    return buffer;
  }
  decodeStream.ensureBuffer = boundedEnsureBuffer;
  return boundedEnsureBuffer;
}

/**
 * pdfjs's native Flate and Brotli (for page contents, forms, fonts, CMaps, images) run the platform's
 * DecompressionStream, keep every chunk and then copy them all: twice the output, with no ceiling, and for every
 * part of a `/Contents` array at once. Replaced, with the same contract (`{ decompressed, compressed }`, where
 * `decompressed: null` makes pdfjs use its JavaScript decoder instead), by node:zlib with `maxOutputLength`: the
 * output stops at the ceiling. Damaged data also answers null: the JavaScript decoders are more lenient, and bounded.
 */
function patchNativeDecode(decodeStream: Proto): void {
  decodeStream.asyncGetBytesFromDecompressionStream = async function boundedNativeDecode(
    this: Decoder,
    format: string,
  ) {
    const budget = currentBudget();
    budget.tick();
    const inner = this.stream!;
    inner.reset();
    const compressed = (inner.isAsync && (await inner.asyncGetBytes!())) || inner.getBytes();
    if ((format !== 'deflate' && format !== 'brotli') || !budget.mayDecodeNatively())
      return { decompressed: null, compressed };
    const { limit, image } = limitFor(this, budget);
    const ceiling = Math.min(limit, budget.remaining(image)) + 1;
    let out: Buffer;
    try {
      out =
        format === 'deflate'
          ? inflateSync(compressed, { maxOutputLength: ceiling })
          : brotliDecompressSync(compressed, { maxOutputLength: ceiling });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget.charge(ceiling, ceiling, limit, image);
      return { decompressed: null, compressed };
    }
    budget.charge(out.length, out.length, limit, image);
    budget.countNative(out.length);
    return { decompressed: new Uint8Array(out.buffer, out.byteOffset, out.length), compressed };
  };
}

/** pdfjs's JavaScript Brotli decodes a whole stream in one call, past any buffer check: node:zlib with a ceiling. */
function patchBrotli(brotli: Proto): void {
  brotli.readBlock = function boundedBrotliBlock(this: Decoder) {
    const budget = currentBudget();
    const { limit, image } = limitFor(this, budget);
    const ceiling = Math.min(limit, budget.remaining(image)) + 1;
    let out: Buffer;
    try {
      out = brotliDecompressSync(this.stream!.getBytes(), { maxOutputLength: ceiling });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget.charge(ceiling, ceiling, limit, image);
      throw error;
    }
    budget.charge(out.length, out.length, limit, image);
    this.buffer = new Uint8Array(out.buffer, out.byteOffset, out.length);
    this.bufferLength = out.length;
    this.eof = true;
  };
}

/**
 * Image decoders allocate from sizes inside the data (JPEG SOF, JPEG 2000 SIZ, JBIG2 page information) or from
 * `/DecodeParms` (CCITT): refused from those sizes before decoding; the result is charged after.
 */
function patchImageDecoders(decoders: Map<string, Proto>): void {
  const estimates: [string, (decoder: Decoder, data: Uint8Array) => number][] = [
    ['DCTDecode', (_decoder, data) => jpegSamples(data)],
    ['JPXDecode', (_decoder, data) => jpxSamples(data)],
    ['JBIG2Decode', (decoder, data) => jbig2Bytes(decoder.dict, data)],
    ['CCITTFaxDecode', (decoder) => ccittBytes(decoder.dict, decoder.params)],
  ];
  for (const [name, estimate] of estimates) {
    const prototype = decoders.get(name)!;
    const decodeImage = prototype.decodeImage as Decoder['decodeImage'];
    if (typeof decodeImage !== 'function') throw new Error(`pdfjs decode bound: ${name} has no decodeImage.`);
    prototype.decodeImage = function boundedDecodeImage(this: Decoder, bytes: Uint8Array | null, ...rest: unknown[]) {
      if (this.eof) return decodeImage.call(this, bytes, ...(rest as [number, unknown]));
      const budget = currentBudget();
      // The encoded bytes as the original takes them (`bytes` reads the inner stream, itself bounded).
      const data = bytes || (this.bytes as Uint8Array);
      const limit = budget.limits.maxImageBytes;
      budget.charge(0, estimate(this, data), limit, true);
      const charge = (result: unknown) => {
        const size = (result as Uint8Array | undefined)?.length ?? 0;
        budget.charge(size, size, limit, true);
        return result;
      };
      const result = decodeImage.call(this, data, ...(rest as [number, unknown]));
      return result instanceof Promise ? result.then(charge) : charge(result);
    };
  }
}

/**
 * `makeFilter` is the one way a `/Filter` name becomes a decoder: a name pdfjs does not know (it would pass the bytes
 * through) and a decoder this module did not vet are refused; cross-reference streams are checked against their
 * declared entries first. `/Crypt` is let through: without a cipher it is the input itself, with one it is pdfjs's
 * decryption stream, an incremental decoder on the bounded `ensureBuffer`.
 */
function patchMakeFilter(parser: Proto, vetted: Set<unknown>, boundedEnsureBuffer: unknown): void {
  const makeFilter = parser.makeFilter as (
    this: unknown,
    stream: PdfjsStream,
    name: string,
    ...rest: unknown[]
  ) => object;
  parser.makeFilter = function boundedMakeFilter(this: unknown, stream: PdfjsStream, name: string, ...rest: unknown[]) {
    const dict = stream?.dict;
    if (dict && typeof dict.get === 'function' && isName(safeGet(dict, 'Type'), 'XRef')) checkXrefStream(dict);
    const made = makeFilter.call(this, stream, name, ...rest);
    if (made === stream) {
      if (name === 'Crypt') return made;
      currentBudget().trip('filter', `The PDF uses the filter /${name}, which is not supported; it was not read.`);
    }
    const prototype = Object.getPrototypeOf(made);
    if (vetted.has(prototype)) return made;
    if (
      name === 'Crypt' &&
      (made as { ensureBuffer?: unknown }).ensureBuffer === boundedEnsureBuffer &&
      !('decodeImage' in made)
    )
      return made;
    currentBudget().trip(
      'filter',
      `The PDF uses the filter /${name}, whose output cannot be bounded; it was not read.`,
    );
  };
}

/** A cross-reference stream: its entry count is checked, and its data may decode to entries × widths, no more. */
function checkXrefStream(dict: DictLike): void {
  const budget = currentBudget();
  const index = safeGet(dict, 'Index');
  const widths = safeGet(dict, 'W');
  let entries = 0;
  if (Array.isArray(index)) for (let i = 1; i < index.length; i += 2) entries += Number(index[i]) || 0;
  else entries = Number(safeGet(dict, 'Size')) || 0;
  if (entries > budget.limits.maxXrefEntries)
    budget.trip(
      'xref',
      `The PDF's cross-reference stream declares ${entries} objects, more than ${budget.limits.maxXrefEntries}; it was not read.`,
    );
  const width = Array.isArray(widths) ? widths.reduce((sum: number, w) => sum + (Number(w) || 0), 0) : 0;
  xrefStreamLimits.set(dict, entries * width + 1024);
}

/** Operator floods and long parses: every 4096 objects parsed, the page's object count, deadline and signal. */
function patchGetObj(parser: Proto): void {
  const getObj = parser.getObj as (this: unknown, ...args: unknown[]) => unknown;
  let parsed = 0;
  parser.getObj = function boundedGetObj(this: unknown, ...args: unknown[]) {
    if ((++parsed & 4095) === 0) activeBudget()?.tick(4096);
    return getObj.apply(this, args);
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Self-test

/**
 * Decodes small bombs through each patched path under a 256 KiB budget and throws unless every one is refused; a
 * decode outside any budget must be refused too, and a small stream must still decode.
 */
async function selfTest(internals: PdfjsInternals): Promise<void> {
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
