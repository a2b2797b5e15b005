import type { PdfPage, UnreadableReason } from './pdf-page.ts';

/** Trailing spaces off every line, no control characters, at most one blank line in a row, NFC. */
export function tidy(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[^\P{Cc}\t\n\r]/gu, '') // control characters but tab and line breaks
    .replace(/\r\n?/g, '\n')
    .replace(/(?<![ \t\u00a0])[ \t\u00a0]+\n/g, '\n') // the look-behind: one try per run of spaces, not one per space
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;

/**
 * Letters and digits: what makes text "readable" (punctuation and spaces alone are not). Counting stops at `upTo`:
 * the hot path only needs to know whether a page has "enough" text, not how much.
 */
export function countLetters(text: string, upTo = Number.POSITIVE_INFINITY): number {
  const pattern = new RegExp(LETTER_OR_DIGIT);
  let count = 0;
  while (count < upTo && pattern.exec(text) !== null) count++;
  return count;
}

export function readable(page: number, text: string, ocr: boolean, otherwise: UnreadableReason): PdfPage {
  return countLetters(text, 1) > 0 ? { page, text, ocr } : { page, text: '', ocr, unreadable: otherwise };
}
