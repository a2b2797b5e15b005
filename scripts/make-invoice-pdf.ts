/**
 * Writes `examples/invoice.pdf`, the one-page invoice the README's extract example reads: a text layer only (no
 * image), so it is small and reads the same on every machine. Fixed dates and id, so running it again changes
 * nothing: `npx tsx scripts/make-invoice-pdf.ts`.
 */
import { writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export const INVOICE_TEXT = [
  'Invoice 42: total R$ 100,00',
  'Acme Ltda, Rua das Flores 10, Sao Paulo',
  'Due 2026-12-15',
];

export async function invoicePdf(): Promise<Uint8Array> {
  const fixed = new Date('2026-11-21T00:00:00Z');
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle('Invoice 42');
  doc.setCreationDate(fixed);
  doc.setModificationDate(fixed);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  for (const [i, line] of INVOICE_TEXT.entries())
    page.drawText(line, { x: 56, y: 760 - i * 20, size: i === 0 ? 16 : 12, font });
  return doc.save({ useObjectStreams: false });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = new URL('../examples/invoice.pdf', import.meta.url);
  writeFileSync(target, await invoicePdf());
  console.log(`wrote ${target.pathname}`);
}
