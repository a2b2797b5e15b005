import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stemmer as portugueseStemmer } from '@orama/stemmers/portuguese';
import { stopwords as englishStopwords } from '@orama/stopwords/english';
import { stopwords as portugueseStopwords } from '@orama/stopwords/portuguese';

/**
 * Text handling for Portuguese and English knowledge: lower case, accents folded, stop words dropped, light
 * stemming (Snowball stemmers from @orama/stemmers).
 *
 * Excerpts are stemmed in their file's language (detected from stop words). A query's language is not known, so
 * each query word yields its Portuguese and its English term; the index scores a word by its best variant.
 *
 * Brazilian users often type without accents ("informacao"), which Snowball's Portuguese stemmer treats unlike the
 * accented word ("informação" → "inform", "informacao" → "informaca"). Portuguese words are therefore folded, given
 * back the nasal endings that folding erased and reduced to the singular ("informacoes" → "informação"), stemmed,
 * and folded again, so the accented, the unaccented, the singular and the plural forms meet on one term.
 */
export type Language = 'pt' | 'en';

const MAX_TOKEN_LENGTH = 40;

const FOLDED_STOPWORDS = new Set([...portugueseStopwords, ...englishStopwords].map(foldAccents));
const PORTUGUESE_MARKERS = new Set(portugueseStopwords.map(foldAccents).filter((w) => !englishStopwords.includes(w)));
const ENGLISH_MARKERS = new Set(englishStopwords.filter((w) => !portugueseStopwords.includes(w)).map(foldAccents));

/** Removes diacritics: "Informação" → "Informacao". */
export function foldAccents(s: string): string {
  return s.normalize('NFD').replace(/\p{M}+/gu, '');
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The folded, lower-cased words of a text, in order (stop words included). */
export function words(text: string): string[] {
  return foldAccents(text.normalize('NFC').toLowerCase()).match(WORD) ?? [];
}

/** Guesses whether a text is Portuguese or English from its stop words; Portuguese when it cannot tell. */
export function detectLanguage(text: string): Language {
  let pt = 0;
  let en = 0;
  const sample = words(text.length > 20_000 ? text.slice(0, 20_000) : text);
  for (const w of sample) {
    if (PORTUGUESE_MARKERS.has(w)) pt++;
    else if (ENGLISH_MARKERS.has(w)) en++;
  }
  return en > pt ? 'en' : 'pt';
}

/** Folded Portuguese word back to a form the stemmer knows: nasal endings restored, plural reduced. */
function portugueseSingular(w: string): string {
  if (w.length < 4) return w;
  if (w.endsWith('coes')) return `${w.slice(0, -4)}ção`;
  if (w.endsWith('cao')) return `${w.slice(0, -3)}ção`;
  if (w.endsWith('oes') || w.endsWith('aos') || w.endsWith('aes')) return `${w.slice(0, -3)}ão`;
  if (w.endsWith('ao')) return `${w.slice(0, -2)}ão`;
  return w;
}

function stemPortuguese(w: string): string {
  return foldAccents(portugueseStemmer(portugueseSingular(w)));
}

function stemEnglish(w: string): string {
  return englishStemmer(w);
}

/**
 * Word → term, memoised per language ('' for a word that is not indexed: a stop word or an over-long token).
 * Vocabularies are small next to the text, so almost every word is one map lookup: no folding, no stemming.
 */
const caches: Record<Language, Map<string, string>> = { pt: new Map(), en: new Map() };
const CACHE_LIMIT = 200_000;

function termOf(word: string, language: Language): string {
  const cache = caches[language];
  let t = cache.get(word);
  if (t === undefined) {
    const folded = /[\u0080-\uffff]/.test(word) ? foldAccents(word) : word;
    if (folded.length > MAX_TOKEN_LENGTH || FOLDED_STOPWORDS.has(folded)) t = '';
    else if (isPlainNumberOrShort(folded)) t = folded;
    else t = language === 'pt' ? stemPortuguese(folded) : stemEnglish(folded);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(word, t);
  }
  return t;
}

function isPlainNumberOrShort(word: string): boolean {
  return word.length <= 2 || /^\d/.test(word);
}

const RAW_WORD = /[\p{L}\p{N}]+/gu;

/**
 * The index terms of an excerpt written in `language`: stop words dropped, each word folded and stemmed.
 * Expects NFC text (the chunker normalises documents once), so an accented letter is one code point of a word.
 */
export function documentTerms(text: string, language: Language): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(RAW_WORD) ?? []) {
    const t = termOf(word, language);
    if (t) out.push(t);
  }
  return out;
}

/** The term of an already folded word, stop words included (queries made only of stop words keep them). */
function stemmed(folded: string, language: Language): string {
  if (isPlainNumberOrShort(folded)) return folded;
  return language === 'pt' ? stemPortuguese(folded) : stemEnglish(folded);
}

/** One word of a query: its Portuguese and English terms (one when they agree), and how often the query says it. */
export interface QueryTerm {
  variants: string[];
  count: number;
}

/**
 * The terms of a query, one entry per distinct word with its count (a word said twice weighs twice, as Lucene's
 * and most BM25 engines' query term frequency does). A query made only of stop words keeps them, so "o que é" still
 * searches something.
 */
export function queryTerms(query: string): QueryTerm[] {
  const all = words(query).filter((w) => w.length <= MAX_TOKEN_LENGTH);
  const kept = all.filter((w) => !FOLDED_STOPWORDS.has(w));
  const source = kept.length ? kept : all;
  const byKey = new Map<string, QueryTerm>();
  for (const w of source) {
    const variants = [...new Set([stemmed(w, 'pt'), stemmed(w, 'en')])];
    const key = variants.join('\u0000');
    const seen = byKey.get(key);
    if (seen) seen.count++;
    else byKey.set(key, { variants, count: 1 });
  }
  return [...byKey.values()];
}

/** The terms of a query, one group per distinct word (see {@link queryTerms}, which also counts them). */
export function queryTermGroups(query: string): string[][] {
  return queryTerms(query).map((t) => t.variants);
}
