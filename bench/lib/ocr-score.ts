/** The words of a text as the OCR benchmarks count them: lower-cased, NFC, letters and digits only. */
const words = (text: string) =>
  text
    .normalize('NFC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** How many of the words of `truth` appear in `ocr`, counted with multiplicity ("words found"). */
export function wordsFound(truth: string, ocr: string): { found: number; total: number } {
  const available = new Map<string, number>();
  for (const w of words(ocr)) available.set(w, (available.get(w) ?? 0) + 1);
  let found = 0;
  const expected = words(truth);
  for (const w of expected) {
    const left = available.get(w) ?? 0;
    if (left > 0) {
      found++;
      available.set(w, left - 1);
    }
  }
  return { found, total: expected.length };
}
