/**
 * The bound on what pdfjs-dist decodes (docs/reference/limits.md, "Untrusted input: decoding ceilings"), enforced
 * inside pdfjs's own decoders: where bytes are decoded, not by scanning the file first (the scan it replaces missed
 * `/Fl`, `/Flat#65Decode`, a `/Filter` by reference, a dictionary past 4 KB, Brotli, LZW, RunLength, predictors and
 * images).
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
import { brotliDecompressSync, inflateSync } from 'node:zlib';
import { currentBudget, activeBudget, DecodeBudget } from './decode-budget.ts';
import { selfTest } from './decode-bound-self-test.ts';
import { handlePrefetchRejections } from './prefetch-rejections.ts';
import { ccittBytes, type DictLike, jbig2Bytes, jpegSamples, jpxSamples, safeGet } from './image-sizes.ts';
import {
  captureInternals,
  type Decoder,
  type PdfjsInternals,
  type PdfjsOpener,
  type PdfjsStream,
  type Proto,
} from './pdfjs-internals.ts';

/** pdfjs versions the adversarial corpus was run against with this module; others only log a warning. */
export const TESTED_PDFJS_VERSIONS = ['6.5.438'];

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
    handlePrefetchRejections(internals.xrefPrototype);
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
