import { createHash } from 'node:crypto';
import { seededRandom } from '#test/support/seeded-random.ts';
import { hashedVector } from '#shared/knowledge/adapters/hashed-embeddings.ts';
import type { Bot } from '#shared/bots/index.ts';
import type { DeleteMarker, SegmentDocumentInput } from '#shared/knowledge/index/segment.ts';
import type { KnowledgeSearchRequest } from '#shared/knowledge/knowledge-search.ts';

/**
 * A small fixed knowledge base and query set on which every index format must rank identically: five segments
 * (files replaced in a later segment, a file deleted by a marker, one marker-only segment), Portuguese and English
 * files of a few to 40 excerpts from a Zipf-like vocabulary, and queries with repeated words, stop words only,
 * unknown words, file filters and every topK. `test/fixtures/knowledge-v3/` holds these segments as the format-3
 * writer stored them, and what that format's search answered.
 */
export const PARITY_EMBEDDING_DIMS = 256;

const PT = 'de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele'.split(' ');
const EN = 'the of and to in a is that for it as was with be by on not he this are or his from at'.split(' ');
const SYLLABLES = 'ca ri to men ção pa ge lo sa vi ra do tra ble ment in ter con pro ões ing ed ly ar es ta mo'.split(
  ' ',
);

export interface ParitySegment {
  id: string;
  documents: SegmentDocumentInput[];
  markers: DeleteMarker[];
}

export function paritySegments(): ParitySegment[] {
  const random = seededRandom(2026);
  const vocabulary: string[] = [];
  const seen = new Set<string>();
  while (vocabulary.length < 1500) {
    let w = '';
    for (let i = 0, n = 2 + Math.floor(random() * 3); i < n; i++)
      w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      vocabulary.push(w);
    }
  }
  const pick = (list: string[]) => list[Math.min(list.length - 1, Math.floor(list.length ** (random() ** 1.6)) - 1)]!;
  const passage = (language: 'pt' | 'en', chars: number) => {
    const common = language === 'pt' ? PT : EN;
    let out = '';
    while (out.length < chars) {
      const words: string[] = [];
      for (let w = 0, n = 6 + Math.floor(random() * 14); w < n; w++)
        words.push(random() < 0.4 ? common[Math.floor(random() * common.length)]! : pick(vocabulary));
      out += `${out ? ' ' : ''}${words.join(' ')}.`;
    }
    return out;
  };
  const doc = (n: number, generation: string, name = `file-${String(n).padStart(2, '0')}.md`) => {
    const language: 'pt' | 'en' = n % 3 === 0 ? 'en' : 'pt';
    const count = 1 + Math.floor(random() ** 2 * 40);
    const excerpts = Array.from({ length: count }, () => passage(language, 80 + Math.floor(random() * 900)));
    return {
      fileKey: `key-${n}`,
      fileName: name,
      generation,
      language,
      excerpts,
      vectors: excerpts.map((e) => hashedVector(e, PARITY_EMBEDDING_DIMS)),
    };
  };
  return [
    { id: 'seg-001', documents: Array.from({ length: 10 }, (_, n) => doc(n, 'g1')), markers: [] },
    { id: 'seg-002', documents: Array.from({ length: 10 }, (_, n) => doc(10 + n, 'g1')), markers: [] },
    {
      id: 'seg-003',
      // Files 3 and 14 replaced by newer versions; file 4 replaced by a version with other text of the same name.
      documents: [...Array.from({ length: 8 }, (_, n) => doc(20 + n, 'g2')), doc(3, 'g2'), doc(14, 'g3'), doc(4, 'g2')],
      markers: [],
    },
    {
      id: 'seg-004',
      documents: Array.from({ length: 8 }, (_, n) => doc(28 + n, 'g2')),
      markers: [{ fileKey: 'key-12', generation: 'g1', at: 1 }],
    },
    { id: 'seg-005', documents: [], markers: [{ fileKey: 'key-25', generation: 'g2', at: 2 }] },
  ];
}

/** The bot listing the segments, as the search reads it. */
export function parityBot(keyOf: (segmentId: string) => string, segments = paritySegments()): Bot {
  return {
    botId: 'bot_parity',
    projectId: 'prj_parity',
    name: 'parity',
    instructions: '',
    createdAt: '',
    updatedAt: '',
    knowledge: {
      version: segments.length,
      segments: segments.map((s) => ({
        id: s.id,
        key: keyOf(s.id),
        docs: s.documents.length,
        excerpts: s.documents.reduce((n, d) => n + d.excerpts.length, 0),
        markers: s.markers.length,
        bytes: 0,
      })),
    },
  };
}

export function parityQueries(segments = paritySegments()): Omit<KnowledgeSearchRequest, 'botId' | 'bot'>[] {
  const random = seededRandom(77);
  const words = segments.flatMap((s) => s.documents.flatMap((d) => d.excerpts.slice(0, 2).join(' ').split(/[ .]+/)));
  const queries: Omit<KnowledgeSearchRequest, 'botId' | 'bot'>[] = [];
  for (let i = 0; i < 70; i++) {
    const n = 1 + Math.floor(random() * 6);
    const q = Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!);
    if (i % 7 === 3) q.push(q[0]!); // a repeated word counts twice
    const filters =
      i % 9 === 4
        ? { include: ['file-1%'] }
        : i % 9 === 5
          ? { exclude: ['%2.md', 'file-0%'] }
          : i % 9 === 6
            ? { include: ['FILE-3%', 'file-0%'], exclude: ['file-33.md'] }
            : undefined;
    queries.push({ query: q.join(' '), topK: 1 + (i % 8), ...(filters ? { filters } : {}) });
  }
  queries.push({ query: 'o que é', topK: 5 }, { query: 'zzzunknownword', topK: 5 }, { query: 'the of and', topK: 8 });
  return queries;
}

/** What a search answered, compared across formats: file, which text (a digest), score to 4 decimals. */
export function answerDigest(results: { text: string; fileName: string; score: number }[]): string[] {
  return results.map(
    (r) => `${r.fileName} ${createHash('sha256').update(r.text).digest('hex').slice(0, 12)} ${r.score.toFixed(4)}`,
  );
}
