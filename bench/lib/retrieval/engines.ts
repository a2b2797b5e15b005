/**
 * Search engines the retrieval bench compares, each over the same documents in one process. Each answers a query
 * with
 * - `shallow`: the documents of what the API returns at topK = 8 (for the project: the 8 excerpts mapped to their
 *   documents, a document kept at its first rank, so fewer than 8 when one document holds several);
 * - `slots`: the document of each of the 8 results in order, repeats included (what the bot actually receives);
 * - `deep`: up to 100 documents (excerpts ranked, mapped to documents, first occurrence kept) for MAP and R@100.
 */
import { createRequire } from 'node:module';
import {
  buildSegment,
  chunkText,
  detectLanguage,
  fileKeyOf,
  fuseRankings,
  KnowledgeView,
  type RankingOptions,
  type SegmentDocumentInput,
  segmentFromBytes,
} from '#shared/knowledge/index.ts';
import type { EmbeddingsProvider } from '#shared/models/index.ts';
import { type Doc, fileText } from './collections.ts';

const require = createRequire(import.meta.url);

export const API_TOP_K = 8;
export const DEEP = 100;
/** Excerpts ranked for the deep list: enough for 100 documents however many excerpts each contributes. */
const DEEP_EXCERPTS = 5000;

export interface SearchResult {
  shallow: string[];
  slots: string[];
  deep: string[];
}

export interface Engine {
  name: string;
  build(docs: Doc[]): void | Promise<void>;
  search(query: string): SearchResult | Promise<SearchResult>;
}

function firstOccurrences(ids: Iterable<string>, limit: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    if (out.length === limit) break;
  }
  return out;
}

/**
 * wink-bm25-text-search 3.1.2 with wink-nlp-utils 2.1.0: lower case, tokenize0, stop words removed, Porter2 stemmer
 * (its README's pipeline without the negation step); BM25 k1 1.2, b 0.75; title and text as one field.
 */
export function winkEngine(): Engine {
  const bm25 = require('wink-bm25-text-search');
  const nlp = require('wink-nlp-utils');
  const engine = bm25();
  let docs: Doc[] = [];
  return {
    name: 'wink-bm25-text-search 3.1.2 (Porter2, stop words)',
    build(all) {
      docs = all;
      engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
      engine.definePrepTasks([nlp.string.lowerCase, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem]);
      for (const [i, d] of all.entries()) engine.addDoc({ body: fileText(d) }, i);
      engine.consolidate();
    },
    search(query) {
      const deep = (engine.search(query, DEEP) as [string, number][]).map(([i]) => docs[Number(i)]!.id);
      return { shallow: deep.slice(0, API_TOP_K), slots: deep.slice(0, API_TOP_K), deep };
    },
  };
}

/** MiniSearch 7.2 with its defaults (BM25+, no stemming, no stop words), fields title and text. */
export function miniSearchEngine(): Engine {
  const MiniSearch = require('minisearch');
  let mini: { search(q: string): { id: number }[] };
  let docs: Doc[] = [];
  return {
    name: 'MiniSearch 7.2 (defaults; fields title, text)',
    build(all) {
      docs = all;
      mini = new MiniSearch({ fields: ['title', 'text'] });
      (mini as unknown as { addAll(d: unknown[]): void }).addAll(
        all.map((d, i) => ({ id: i, title: d.title, text: d.text })),
      );
    },
    search(query) {
      const deep = mini
        .search(query)
        .slice(0, DEEP)
        .map((r) => docs[r.id]!.id);
      return { shallow: deep.slice(0, API_TOP_K), slots: deep.slice(0, API_TOP_K), deep };
    },
  };
}

/** A knowledge file for the project's index: what ingestion makes of an uploaded text file. */
export function fileInput(name: string, text: string): SegmentDocumentInput {
  return {
    fileKey: fileKeyOf(name),
    fileName: name,
    generation: '0',
    language: detectLanguage(text),
    excerpts: chunkText(text),
  };
}

/**
 * The project's knowledge search, as the search route runs it: every document one text file (`title\n\ntext`),
 * chunked and analysed as ingestion does, in `segments` segments (as incremental ingestion leaves them), scored and
 * selected by {@link KnowledgeView}.
 */
export function projectEngine(name: string, ranking: RankingOptions = {}, segments = 1): ProjectEngine {
  return new ProjectEngine(name, ranking, segments);
}

export class ProjectEngine implements Engine {
  view!: KnowledgeView;
  /** The unit each excerpt counts for (a document id; the long-file test sets its own). */
  unitOf!: (excerpt: number) => string;
  constructor(
    readonly name: string,
    private readonly ranking: RankingOptions,
    private readonly segments: number,
  ) {}

  async build(all: Doc[]): Promise<void> {
    const inputs = all.map((d) => ({ ...fileInput(`${d.id}.txt`, fileText(d)), generation: d.id }));
    await this.buildFrom(inputs);
    const ids = new Map(all.map((d) => [`${d.id}.txt`, d.id]));
    this.unitOf = (e) => ids.get(this.view.docOf(e).fileName)!;
  }

  async buildFrom(inputs: SegmentDocumentInput[]): Promise<void> {
    const per = Math.ceil(inputs.length / this.segments);
    const loaded = [];
    for (let i = 0; i < inputs.length; i += per)
      loaded.push({
        id: String(i).padStart(8, '0'),
        segment: await segmentFromBytes(buildSegment(inputs.slice(i, i + per), { builtAt: new Date(0) })),
      });
    this.view = await KnowledgeView.open(loaded);
  }

  async search(query: string): Promise<SearchResult> {
    // Deep enough for 100 documents however many excerpts each contributes.
    const ranked = await this.view.rank(query, { limit: DEEP_EXCERPTS, ranking: this.ranking });
    const top = this.view.select(ranked, API_TOP_K, this.ranking).map((r) => r.excerpt);
    return {
      shallow: firstOccurrences(top.map(this.unitOf), API_TOP_K),
      slots: top.map(this.unitOf),
      deep: firstOccurrences(
        ranked.map((r) => this.unitOf(r.excerpt)),
        DEEP,
      ),
    };
  }
}

/**
 * Hybrid retrieval as the search route runs it with `EMBEDDINGS_PROVIDER` set: every excerpt embedded (batches of
 * 32, as ingestion does), the query embedded, lexical and vector rankings fused by reciprocal rank, then the same
 * top-K selection. Needs a reachable model.
 */
export class HybridEngine implements Engine {
  readonly name: string;
  view!: KnowledgeView;
  unitOf!: (excerpt: number) => string;
  constructor(private readonly model: EmbeddingsProvider) {
    this.name = `project, hybrid with ${model.model}`;
  }

  async build(all: Doc[]): Promise<void> {
    const inputs = all.map((d) => ({ ...fileInput(`${d.id}.txt`, fileText(d)), generation: d.id }));
    for (const input of inputs) {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < input.excerpts.length; i += 32)
        vectors.push(...(await this.model.embed(input.excerpts.slice(i, i + 32), 'document')));
      Object.assign(input, { vectors });
    }
    this.view = await KnowledgeView.open([
      {
        id: '0',
        segment: await segmentFromBytes(
          buildSegment(inputs, { builtAt: new Date(0), embeddingModel: this.model.model }),
        ),
      },
    ]);
    const ids = new Map(all.map((d) => [`${d.id}.txt`, d.id]));
    this.unitOf = (e) => ids.get(this.view.docOf(e).fileName)!;
  }

  async search(query: string): Promise<SearchResult> {
    const ranked = await this.view.rank(query, { limit: DEEP_EXCERPTS });
    const [vector] = await this.model.embed([query], 'query');
    const similarities = await this.view.vectorRanking(vector!, this.model.model, { limit: DEEP_EXCERPTS });
    const top = fuseRankings(this.view, ranked, similarities, API_TOP_K).map((r) => r.excerpt);
    // The deep list: the fused candidates (the best 50 of each ranking), best first.
    const deep = fuseRankings(this.view, ranked, similarities, DEEP).map((r) => r.excerpt);
    return {
      shallow: firstOccurrences(top.map(this.unitOf), API_TOP_K),
      slots: top.map(this.unitOf),
      deep: firstOccurrences(deep.map(this.unitOf), DEEP),
    };
  }
}
