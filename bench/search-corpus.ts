/**
 * Synthetic knowledge for the search and ingest benchmarks: Portuguese- and English-like prose drawn from a
 * Zipf-distributed vocabulary (real function words plus generated content words), in paragraphs and sentences,
 * so chunking, stop words, stemming and posting-list lengths behave as on real documents. Deterministic (seeded).
 */
const PT_COMMON =
  'de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua ou quando muito nos já também só pelo pela até isso ela entre depois sem mesmo aos seus quem nas esse eles você essa'.split(
    ' ',
  );
const EN_COMMON =
  'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can out up about who what'.split(
    ' ',
  );
const SYLLABLES = [
  'ca',
  'ri',
  'to',
  'men',
  'ção',
  'pa',
  'ge',
  'lo',
  'sa',
  'vi',
  'ra',
  'do',
  'tra',
  'ble',
  'ment',
  'in',
  'ter',
  'con',
  'pro',
  'ões',
  'ing',
  'ed',
  'ly',
  'ar',
  'es',
  'ta',
  'mo',
  'ni',
  'cu',
  'fe',
];

export { seededRandom } from '#test/support/seeded-random.ts';

export function makeVocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Zipf-ish pick: index ~ size^(u^2) skews toward the head of the list. */
function pick<T>(list: T[], random: () => number): T {
  const i = Math.floor(list.length ** (random() ** 1.6)) - 1;
  return list[Math.max(0, Math.min(list.length - 1, i))]!;
}

/** A sentence of the given language. */
function sentence(common: string[], vocabulary: string[], random: () => number): string {
  const words: string[] = [];
  const n = 8 + Math.floor(random() * 18);
  for (let w = 0; w < n; w++) words.push(random() < 0.45 ? pick(common, random) : pick(vocabulary, random));
  const s = words.join(' ');
  return `${s[0]!.toUpperCase() + s.slice(1)}.`;
}

/** One excerpt-sized passage of about `chars` characters (whole sentences). */
export function makePassage(chars: number, language: 'pt' | 'en', vocabulary: string[], random: () => number): string {
  const common = language === 'pt' ? PT_COMMON : EN_COMMON;
  let out = '';
  while (out.length < chars - 60) out += (out ? ' ' : '') + sentence(common, vocabulary, random);
  return out;
}

/** A document of about `chars` characters. */
export function makeDocument(chars: number, language: 'pt' | 'en', vocabulary: string[], random: () => number): string {
  const common = language === 'pt' ? PT_COMMON : EN_COMMON;
  const paragraphs: string[] = [];
  let total = 0;
  while (total < chars) {
    const sentences: string[] = [];
    const count = 2 + Math.floor(random() * 5);
    for (let s = 0; s < count; s++) {
      const words: string[] = [];
      const n = 8 + Math.floor(random() * 18);
      for (let w = 0; w < n; w++) words.push(random() < 0.45 ? pick(common, random) : pick(vocabulary, random));
      const sentence = words.join(' ');
      sentences.push(`${sentence[0]!.toUpperCase() + sentence.slice(1)}.`);
    }
    const p = sentences.join(' ');
    paragraphs.push(p);
    total += p.length + 2;
  }
  return paragraphs.join('\n\n');
}
