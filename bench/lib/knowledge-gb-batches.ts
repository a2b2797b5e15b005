/**
 * A worker thread of bench/knowledge-gb-build.ts: makes ingest batches (20 files each) into segments, as the ingest
 * worker's publish step does (chunker, language detection, the analyzer's terms, buildSegment), so the builder's
 * main thread only stores, lists and merges them. Two of these keep both cores busy while the main thread merges.
 */
import { parentPort } from 'node:worker_threads';
import {
  buildSegment,
  chunkText,
  detectLanguage,
  documentTerms,
  fileKeyOf,
  type Language,
  newGeneration,
  type SegmentDocumentInput,
} from '#shared/knowledge/index.ts';
import { corpusFile } from './zipf-corpus.ts';

/** documentTerms, word by word, memoised without a limit (same terms: the analyzer works word by word). */
const memo: Record<Language, Map<string, string>> = { pt: new Map(), en: new Map() };
const WORD = /[\p{L}\p{N}]+/gu;
function terms(text: string, language: Language): string[] {
  const out: string[] = [];
  const cache = memo[language];
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    let t = cache.get(word);
    if (t === undefined) {
      t = documentTerms(word, language)[0] ?? '';
      cache.set(word, t);
    }
    if (t) out.push(t);
  }
  return out;
}

parentPort!.on('message', ({ first, count }: { first: number; count: number }) => {
  const docs: SegmentDocumentInput[] = [];
  let textBytes = 0;
  for (let n = first; n < first + count; n++) {
    const file = corpusFile(n);
    textBytes += Buffer.byteLength(file.text);
    const chunks = chunkText(file.text);
    const language = detectLanguage(file.text);
    const fileTerms = chunks.map((c) => terms(c, language));
    if (fileTerms[0]!.join(' ') !== documentTerms(chunks[0]!, language).join(' '))
      throw new Error(`terms differ from documentTerms in ${file.name}`);
    docs.push({
      fileKey: fileKeyOf(file.name),
      fileName: file.name,
      generation: newGeneration(new Date()),
      language,
      excerpts: chunks,
      terms: fileTerms,
    });
  }
  const at = Date.now();
  const bytes = buildSegment(docs, { builtAt: new Date(at) });
  const excerpts = docs.reduce((x, d) => x + d.excerpts.length, 0);
  parentPort!.postMessage({ first, bytes, textBytes, excerpts, docs: docs.length, at }, [bytes.buffer as ArrayBuffer]);
});
