import type { DictLike } from './image-sizes.ts';

/**
 * pdfjs's decoder classes, which it does not export, reached once at start-up (./decode-bound.ts says how and why),
 * and the tools the bound and its self-test build pdfjs objects and decoders with.
 */

export type Proto = Record<string, unknown>;

/** A pdfjs stream as the patches use it. */
export interface PdfjsStream {
  dict?: DictLike;
  getBytes(length?: number): Uint8Array;
  reset(): void;
  isAsync?: boolean;
  asyncGetBytes?(): Promise<Uint8Array | null>;
}

/** A pdfjs `DecodeStream` (every decoder) as the patches use it. */
export interface Decoder extends PdfjsStream {
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
export interface PdfjsInternals {
  parserPrototype: Proto;
  Parser: new (args: { lexer: unknown; xref: unknown }) => { getObj(): unknown };
  Lexer: new (stream: unknown) => unknown;
  Stream: new (bytes: Uint8Array, start?: number, length?: number, dict?: unknown) => PdfjsStream;
  decodeStreamPrototype: Proto;
  /** Filter name → prototype of the decoder `makeFilter` returns for it (`#Predictor`: the predictor wrapper). */
  decoderPrototypes: Map<string, Proto>;
  nullStreamPrototype: Proto;
  /** `XRef`: the document's object table (`fetchAsync` reads one object by reference). */
  xrefPrototype: Proto;
}

/** What the application gives to open the probe PDF: its own pdfjs, opened the way it opens documents. */
export interface PdfjsOpener {
  version: string;
  /** Opens `bytes` (a tiny valid PDF), reads its first page, and closes it. */
  openAndClose(bytes: Uint8Array): Promise<void>;
}

/**
 * Opens the probe PDF while a `lexer` setter sits on `Object.prototype`. The setter behaves as a plain assignment (it
 * defines the property on the object) and notes the pdfjs `Parser`s it sees (recognised by their `makeFilter`); it
 * removes itself once a noted parser holds a document's `XRef` (the first parser, on the linearization check, has
 * none; the constructor sets `xref` just after `lexer`), and in any case when the probe is closed: the window is one
 * ~20 ms open.
 */
export async function captureInternals(pdfjs: PdfjsOpener): Promise<PdfjsInternals> {
  const KEY = 'lexer';
  if (Object.getOwnPropertyDescriptor(Object.prototype, KEY))
    throw new Error('pdfjs decode bound: Object.prototype.lexer already exists; cannot install the capture hook.');
  let caught: { parser: object; lexer: { stream?: unknown } } | undefined;
  const parsers: Proto[] = [];
  const xrefOfParsers = () =>
    parsers.map((parser) => parser.xref as Proto | null).find((xref) => typeof xref?.fetchAsync === 'function');
  const remove = () => {
    if (Object.getOwnPropertyDescriptor(Object.prototype, KEY)?.set === setter) delete (Object.prototype as Proto)[KEY];
  };
  function setter(this: object, value: unknown) {
    Object.defineProperty(this, KEY, { value, writable: true, enumerable: true, configurable: true });
    if (typeof (this as Proto).makeFilter === 'function' && typeof (value as Proto)?.getObj === 'function') {
      caught ??= { parser: this, lexer: value as { stream?: unknown } };
      parsers.push(this as Proto);
      if (xrefOfParsers() || parsers.length >= 64) remove();
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
  const xref = xrefOfParsers();
  if (!xref) throw new Error('pdfjs decode bound: no Parser of the probe PDF held an XRef (`fetchAsync`).');
  const xrefPrototype = Object.getPrototypeOf(xref) as Proto;
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
    xrefPrototype,
  };
}

/** Builds pdfjs objects from text and decoders from bytes, with pdfjs's own classes. */
export function probeTools(internals: Pick<PdfjsInternals, 'parserPrototype' | 'Parser' | 'Lexer' | 'Stream'>) {
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
export const ZLIB_PROBE = new Uint8Array([
  0x78, 0x9c, 0x2b, 0x28, 0xca, 0x4f, 0x4a, 0x05, 0x00, 0x06, 0x7f, 0x02, 0x28,
]);

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
