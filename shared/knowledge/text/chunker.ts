/**
 * Splits a document's text into excerpts for search: about `targetChars` each, cut on paragraph boundaries, then
 * sentence boundaries, then between words, never inside a word (a single "word" longer than an excerpt, such as
 * an encoded blob, is the only thing ever cut). Each excerpt after the first starts with the end of the previous
 * one (up to `overlapChars`, whole sentences when they fit, else whole words) so a fact that straddles a cut is
 * still found in one piece.
 */
export interface ChunkOptions {
  targetChars: number;
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetChars: 1000, overlapChars: 150 };

/** Unicode NFC (an accented letter is one code point); whitespace tidied: CRLF to LF, runs of spaces to one, at most one blank line in a row, lines trimmed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[\t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000 ]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const SENTENCE_END = /(?<=[.!?…;:])\s+(?=\S)|\n+/g;

export function chunkText(raw: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const text = normalizeText(raw);
  if (!text) return [];
  const max = options.targetChars;
  // Units: pieces no longer than `max`, each tagged with the separator that goes before it.
  const units: { text: string; sep: string }[] = [];
  for (const paragraph of text.split(/\n\n+/)) {
    let first = true;
    const push = (t: string, sep: string) => {
      units.push({ text: t, sep: first ? '\n\n' : sep });
      first = false;
    };
    if (paragraph.length <= max) {
      push(paragraph, '\n\n');
      continue;
    }
    for (const sentence of splitKeepingSeparators(paragraph, SENTENCE_END)) {
      if (sentence.text.length <= max) push(sentence.text, sentence.sep);
      else for (const [i, piece] of splitWords(sentence.text, max).entries()) push(piece, i === 0 ? sentence.sep : ' ');
    }
  }

  const chunks: string[] = [];
  let current: { text: string; sep: string }[] = [];
  let length = 0;
  const flush = () => {
    if (!current.length) return;
    chunks.push(current.map((u, i) => (i === 0 ? u.text : u.sep + u.text)).join(''));
  };
  for (const unit of units) {
    const added = length === 0 ? unit.text.length : unit.sep.length + unit.text.length;
    if (length > 0 && length + added > max) {
      flush();
      const carried = overlapTail(current, options.overlapChars);
      current = carried;
      length = joinedLength(current);
      if (length > 0 && length + unit.sep.length + unit.text.length > max) {
        current = [];
        length = 0;
      }
    }
    current.push(unit);
    length = joinedLength(current);
  }
  flush();
  return chunks;
}

function joinedLength(units: { text: string; sep: string }[]): number {
  return units.reduce((n, u, i) => n + u.text.length + (i === 0 ? 0 : u.sep.length), 0);
}

/** The end of the previous excerpt to repeat: whole trailing units that fit, else its last words that fit. */
function overlapTail(units: { text: string; sep: string }[], budget: number): { text: string; sep: string }[] {
  if (budget <= 0 || !units.length) return [];
  const tail: { text: string; sep: string }[] = [];
  let used = 0;
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i]!;
    const cost = u.text.length + (tail.length ? u.sep.length : 0);
    if (used + cost > budget) break;
    tail.unshift(u);
    used += cost;
  }
  if (tail.length) return tail.length === units.length ? tail.slice(1) : tail;
  const last = units[units.length - 1]!.text;
  const start = last.length - budget;
  const space = last.indexOf(' ', Math.max(0, start));
  if (space < 0 || space >= last.length - 1) return [];
  return [{ text: last.slice(space + 1), sep: ' ' }];
}

function splitKeepingSeparators(text: string, separator: RegExp): { text: string; sep: string }[] {
  const out: { text: string; sep: string }[] = [];
  let last = 0;
  let sep = ' ';
  for (const m of text.matchAll(separator)) {
    const piece = text.slice(last, m.index);
    if (piece) out.push({ text: piece, sep });
    sep = m[0].includes('\n') ? '\n' : ' ';
    last = m.index! + m[0].length;
  }
  const rest = text.slice(last);
  if (rest) out.push({ text: rest, sep });
  return out;
}

/** Cuts a long sentence between words into pieces of at most `max` chars; a word longer than `max` is cut. */
function splitWords(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut <= 0) cut = max;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}
