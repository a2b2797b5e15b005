/**
 * Generated knowledge at any size with a natural word distribution, for bench/knowledge-gb.ts: the real Portuguese or
 * English stop words (about half the words, as in prose) then a million generated content words shared by both
 * languages, drawn by the double power law of real text (see {@link wordAt}). Posting lists then have the lengths of
 * real ones: the commonest content word in a few percent of the excerpts, most words in a handful. Files are plain text of sentences and paragraphs, 20 KB to 5 MB (log-uniform,
 * about 0.9 MB on average), each a pure function of its number, so any prefix of the corpus is rebuilt identically.
 */
import { stopwords as englishStopwords } from '@orama/stopwords/english';
import { stopwords as portugueseStopwords } from '@orama/stopwords/portuguese';
import { seededRandom } from '#test/support/seeded-random.ts';

const SYLLABLES = 'b c d f g l m n p r s t v'.split(' ').flatMap((c) => 'a e i o u'.split(' ').map((v) => c + v));
export const CONTENT_WORDS = 1_000_000;

let vocabulary: string[] | undefined;

/**
 * The content words, most frequent first (deterministic): shorter words first (all of one syllable, then of two...,
 * each length in random order), as frequent words are short in real languages.
 */
export function contentWords(): string[] {
  if (vocabulary) return vocabulary;
  const random = seededRandom(20_261_201);
  const stop = new Set<string>([...portugueseStopwords, ...englishStopwords]);
  const words: string[] = [];
  const seen = new Set<string>();
  const add = (w: string) => {
    if (stop.has(w) || seen.has(w) || words.length >= CONTENT_WORDS) return;
    seen.add(w);
    words.push(w);
  };
  // Every word of one, two and three syllables, each length shuffled; then random words of four.
  let previous = [''];
  for (let length = 1; length <= 3; length++) {
    const longer = previous.flatMap((p) => SYLLABLES.map((s) => p + s));
    for (let i = longer.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [longer[i], longer[j]] = [longer[j]!, longer[i]!];
    }
    for (const w of longer) add(w);
    previous = longer;
  }
  const syllable = () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
  while (words.length < CONTENT_WORDS) add(syllable() + syllable() + syllable() + syllable());
  vocabulary = words;
  return words;
}

const heads = {
  pt: portugueseStopwords.filter((w) => /^\p{L}+$/u.test(w)),
  en: englishStopwords.filter((w) => /^\p{L}+$/u.test(w)),
};

/**
 * Word frequencies follow the double power law of real text: Zipf with exponent 1 over the stop words and the
 * 50,000 commonest content words, exponent 2 beyond them (about 8.5 % of the words, the rare ones), so vocabulary grows
 * as Heaps' law says (roughly with the square root of the text) instead of with the text.
 */
const HEAD_CONTENT = 50_000;
const TAIL_SHARE = 0.085;
function wordAt(language: 'pt' | 'en', random: () => number): string {
  const head = heads[language];
  if (random() < TAIL_SHARE) {
    for (;;) {
      const rank = Math.floor(HEAD_CONTENT / (1 - random()));
      if (rank < CONTENT_WORDS) return contentWords()[rank]!;
    }
  }
  // r = floor(N^u) for u uniform: P(r) ∝ 1/r, continuously.
  const rank = Math.floor((head.length + HEAD_CONTENT) ** random()) - 1;
  return rank < head.length ? head[rank]! : contentWords()[rank - head.length]!;
}

export interface CorpusFile {
  name: string;
  language: 'pt' | 'en';
  text: string;
}

/** Size in bytes of file `n` (log-uniform in 20 KB .. 5 MB). */
export function fileSize(n: number): number {
  const u = seededRandom(n * 7919 + 1)();
  return Math.floor(20_000 * (5_000_000 / 20_000) ** u);
}

/** File `n` of the corpus. */
export function corpusFile(n: number): CorpusFile {
  const random = seededRandom(n * 104_729 + 17);
  const language: 'pt' | 'en' = n % 3 === 2 ? 'en' : 'pt';
  const size = fileSize(n);
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const sentences = 2 + Math.floor(random() * 5);
    let paragraph = '';
    for (let s = 0; s < sentences; s++) {
      const words = 6 + Math.floor(random() * 20);
      let sentence = wordAt(language, random);
      sentence = sentence[0]!.toUpperCase() + sentence.slice(1);
      for (let w = 1; w < words; w++) sentence += ` ${wordAt(language, random)}`;
      paragraph += `${s ? ' ' : ''}${sentence}.`;
    }
    parts.push(paragraph);
    length += paragraph.length + 2;
  }
  return { name: `manual-${String(n).padStart(5, '0')}.txt`, language, text: parts.join('\n\n') };
}

/** Queries of 1 to 5 content words, drawn as content words are drawn in text (common ones often, rare ones too). */
export function corpusQueries(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const stop = new Set<string>([...heads.pt, ...heads.en]);
  const content = () => {
    for (;;) {
      const w = wordAt(random() < 0.5 ? 'pt' : 'en', random);
      if (!stop.has(w)) return w;
    }
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 5) }, content).join(' '));
}
