import type { PdfPage, UnreadableReason } from './pdf-page.ts';

const REASONS: Record<UnreadableReason, [string, string]> = {
  blank: ['is blank', 'are blank'],
  noise: [
    'holds only specks or a picture with no recognisable text',
    'hold only specks or pictures with no recognisable text',
  ],
  'low-confidence': ['is an image whose text could not be recognised', 'are images whose text could not be recognised'],
  'ocr-timeout': ['took too long to recognise', 'took too long to recognise'],
  'needs-ocr': ['is a scanned image and OCR is turned off', 'are scanned images and OCR is turned off'],
};

/** "No readable text in the PDF: 2 pages are blank; 1 page holds only specks..." */
export function describeUnreadable(pages: PdfPage[]): string {
  const counts = new Map<UnreadableReason, number>();
  for (const page of pages) {
    const reason = page.unreadable ?? 'blank';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const parts = [...counts].map(([reason, n]) => {
    const [one, many] = REASONS[reason];
    if (pages.length === 1) return `its only page ${one}`;
    if (n === pages.length) return `all ${n} pages ${many}`;
    return n === 1 ? `1 page ${one}` : `${n} pages ${many}`;
  });
  return `No readable text in the PDF: ${parts.join('; ')}.`;
}
