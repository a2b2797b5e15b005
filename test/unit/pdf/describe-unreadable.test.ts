import { describe, expect, it } from 'vitest';
import { describeUnreadable } from '#shared/pdf/index.ts';

describe('describeUnreadable', () => {
  it('says why, page by page', () => {
    expect(describeUnreadable([{ page: 1, text: '', ocr: false, unreadable: 'blank' }])).toBe(
      'No readable text in the PDF: its only page is blank.',
    );
    expect(
      describeUnreadable([
        { page: 1, text: '', ocr: false, unreadable: 'blank' },
        { page: 2, text: '', ocr: false, unreadable: 'noise' },
        { page: 3, text: '', ocr: false, unreadable: 'noise' },
      ]),
    ).toBe(
      'No readable text in the PDF: 1 page is blank; 2 pages hold only specks or pictures with no recognisable text.',
    );
    expect(
      describeUnreadable([1, 2].map((page) => ({ page, text: '', ocr: true, unreadable: 'low-confidence' as const }))),
    ).toBe('No readable text in the PDF: all 2 pages are images whose text could not be recognised.');
  });
});
