import { deflateSync } from 'node:zlib';

/**
 * A tiny PDF writer for hostile test files: numbered objects, a classic cross-reference table or a cross-reference
 * stream, a trailer. It writes exactly the bytes it is given, so it writes malformed and adversarial files on purpose
 * (pdf-lib, which ./pdf-fixtures.ts uses, would normalise them).
 */
export type PdfObjectBody = string | Uint8Array;

const latin1 = (s: string) => Buffer.from(s, 'latin1');

/** `<<dict /Length n>>stream\n…\nendstream` around `data`, already encoded by the caller. */
export function pdfStream(dict: string, data: Uint8Array): Buffer {
  return Buffer.concat([latin1(`<<${dict} /Length ${data.length}>>\nstream\n`), data, latin1('\nendstream')]);
}

export interface WritePdfOptions {
  /** `table` (a classic `xref` section) or `stream` (a cross-reference stream). Default: `stream` with `compressed`. */
  xref?: 'table' | 'stream';
  /**
   * Objects stored in an object stream (`objStm`, whose own slot in the object list is ignored): `encoded` is the
   * stream's Flate data as given, with `first` the offset of the first object; without it, it is built from the
   * members' bodies.
   */
  compressed?: { objStm: number; members: number[]; encoded?: Uint8Array; first?: number };
  /** Extra trailer entries. */
  trailer?: string;
}

/** `objects[i]` is the body of object `i + 1`; object 1 is the catalog. */
export function writePdf(objects: PdfObjectBody[], options: WritePdfOptions = {}): Buffer {
  const parts: Buffer[] = [latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')];
  let offset = parts[0]!.length;
  const offsets = new Map<number, number>();
  const inStream = new Map<number, { objStm: number; index: number }>();
  const push = (bytes: Buffer) => {
    parts.push(bytes);
    offset += bytes.length;
  };
  const c = options.compressed;
  if (c) for (const [index, num] of c.members.entries()) inStream.set(num, { objStm: c.objStm, index });
  for (let i = 0; i < objects.length; i++) {
    const num = i + 1;
    if (inStream.has(num)) continue;
    let body: Buffer;
    if (c && num === c.objStm) body = objectStream(c, objects);
    else body = Buffer.from(typeof objects[i] === 'string' ? latin1(objects[i] as string) : (objects[i] as Uint8Array));
    offsets.set(num, offset);
    push(Buffer.concat([latin1(`${num} 0 obj\n`), body, latin1('\nendobj\n')]));
  }
  const size = objects.length + 1;
  if ((options.xref ?? (c ? 'stream' : 'table')) === 'table') {
    const at = offset;
    let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
    for (let num = 1; num < size; num++) {
      const where = offsets.get(num);
      table += where === undefined ? '0000000000 65535 f \n' : `${String(where).padStart(10, '0')} 00000 n \n`;
    }
    table += `trailer\n<< /Size ${size} /Root 1 0 R ${options.trailer ?? ''}>>\nstartxref\n${at}\n%%EOF\n`;
    push(latin1(table));
    return Buffer.concat(parts);
  }
  const xrefNumber = size;
  const at = offset;
  const entries = Buffer.alloc((size + 1) * 7);
  const put = (num: number, type: number, field2: number, field3: number) => {
    entries[num * 7] = type;
    entries.writeUInt32BE(field2, num * 7 + 1);
    entries.writeUInt16BE(field3, num * 7 + 5);
  };
  put(0, 0, 0, 0xffff);
  for (let num = 1; num < size; num++) {
    const inside = inStream.get(num);
    if (inside) put(num, 2, inside.objStm, inside.index);
    else put(num, 1, offsets.get(num) ?? 0, 0);
  }
  put(xrefNumber, 1, at, 0);
  const body = pdfStream(
    `/Type /XRef /Size ${size + 1} /W [1 4 2] /Root 1 0 R /Filter /FlateDecode ${options.trailer ?? ''}`,
    deflateSync(entries),
  );
  push(Buffer.concat([latin1(`${xrefNumber} 0 obj\n`), body, latin1(`\nendobj\nstartxref\n${at}\n%%EOF\n`)]));
  return Buffer.concat(parts);
}

function objectStream(c: NonNullable<WritePdfOptions['compressed']>, objects: PdfObjectBody[]): Buffer {
  const dict = (first: number) => `/Type /ObjStm /N ${c.members.length} /First ${first} /Filter /FlateDecode`;
  if (c.encoded) return pdfStream(dict(c.first ?? 0), c.encoded);
  let header = '';
  let data = '';
  for (const member of c.members) {
    header += `${member} ${data.length} `;
    const body = objects[member - 1]!;
    data += `${typeof body === 'string' ? body : Buffer.from(body).toString('latin1')}\n`;
  }
  header += '\n';
  return pdfStream(dict(header.length), deflateSync(latin1(header + data)));
}

/** Objects 1-4 of a one-page document: catalog, pages, the page (its content: `contents`), Helvetica as /F1. */
export function onePage(contents = '5 0 R', resources = ''): string[] {
  return [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> ${resources} >> /Contents ${contents} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
}
