import type { SegmentOptions } from './segment.ts';
import type { SegmentReader } from './segment-reader.ts';
import { SegmentWriter } from './segment-writer.ts';

/** Gives the event loop a turn every so often during long loops over data already in memory. */
const YIELD_EVERY = 4096;
const breathe = () => new Promise((resolve) => setImmediate(resolve));

/** A growable pair of arrays for one term's merged postings. */
class PostingBuffer {
  excerpts = new Uint32Array(1024);
  tfs = new Uint8Array(1024);
  length = 0;
  push(excerpt: number, tf: number): void {
    if (this.length === this.excerpts.length) {
      const e = new Uint32Array(this.length * 2);
      e.set(this.excerpts);
      this.excerpts = e;
      const t = new Uint8Array(this.length * 2);
      t.set(this.tfs);
      this.tfs = t;
    }
    this.excerpts[this.length] = excerpt;
    this.tfs[this.length++] = tf;
  }
}

/**
 * One segment holding the documents of `inputs` that `keep` accepts (in input order) and the markers given, as the
 * chunks of its object, without analysing any text again. It streams: the first pass copies texts, lengths and
 * vectors block by block; the second is a k-way merge of the inputs' sorted term lists, each term's postings
 * renumbered. Memory holds a few blocks, one term's postings and 6 bytes per input excerpt (the renumbering and the
 * lengths), whatever the segments' sizes. The result equals {@link buildSegment} over the kept documents.
 */
export async function* mergeSegments(
  inputs: SegmentReader[],
  keep: (segment: number, doc: number) => boolean,
  options: SegmentOptions = {},
): AsyncGenerator<Uint8Array> {
  const withVectors = inputs.find((s) => s.dims);
  const dims = withVectors?.dims ?? 0;
  const model = withVectors?.embeddingModel;
  const out: Uint8Array[] = [];
  const writer = new SegmentWriter((chunk) => out.push(chunk), {
    markers: options.markers ?? [],
    dims,
    ...(model ? { embeddingModel: model } : {}),
    ...(options.builtAt ? { builtAt: options.builtAt } : {}),
  });
  // New excerpt id of each input excerpt (-1: dropped).
  let next = 0;
  const remap = inputs.map((segment, s) => {
    const ids = new Int32Array(segment.excerptCount).fill(-1);
    segment.docs.forEach((doc, d) => {
      if (keep(s, d)) for (let e = doc.first; e < doc.first + doc.count; e++) ids[e] = next++;
    });
    return ids;
  });
  const used = inputs.map((_, s) => remap[s]!.some((id) => id >= 0));

  for (const [s, segment] of inputs.entries()) {
    if (!used[s]) continue;
    const lengths = await segment.lengths();
    const docs = segment.docs;
    let nextDoc = 0;
    const beginUpTo = (excerpt: number) => {
      for (; nextDoc < docs.length && docs[nextDoc]!.first <= excerpt; nextDoc++) {
        if (!keep(s, nextDoc)) continue;
        const { fileKey, fileName, generation, language } = docs[nextDoc]!;
        writer.beginDocument({ fileKey, fileName, generation, language });
      }
    };
    const sameVectors = dims > 0 && segment.dims === dims && segment.embeddingModel === model;
    for await (const block of segment.excerptBlocks()) {
      for (let i = 0; i < block.texts.length; i++) {
        const e = block.first + i;
        beginUpTo(e);
        if (remap[s]![e]! < 0) continue;
        const vector = sameVectors && block.vectors ? block.vectors.subarray(i * dims, (i + 1) * dims) : undefined;
        writer.addExcerpt(block.texts[i]!, lengths[e]!, vector);
      }
      if (out.length) yield* out.splice(0);
    }
    beginUpTo(Number.POSITIVE_INFINITY);
  }

  const streams = inputs.map((segment, s) => (used[s] ? segment.termPostings() : undefined));
  const heads = await Promise.all(streams.map((it) => it?.next()));
  const buffer = new PostingBuffer();
  for (let n = 1; ; n++) {
    let term: string | undefined;
    for (const head of heads)
      if (head && !head.done && (term === undefined || head.value.term < term)) term = head.value.term;
    if (term === undefined) break;
    buffer.length = 0;
    // Inputs are laid out in order, so each input's postings, renumbered, stay ascending.
    for (let s = 0; s < heads.length; s++) {
      const head = heads[s];
      if (!head || head.done || head.value.term !== term) continue;
      const { excerpts, tfs } = head.value.postings;
      const ids = remap[s]!;
      for (let i = 0; i < excerpts.length; i++) {
        const e = ids[excerpts[i]!]!;
        if (e >= 0) buffer.push(e, tfs[i]!);
      }
      heads[s] = await streams[s]!.next();
    }
    writer.addTerm(term, buffer.excerpts, buffer.tfs, buffer.length);
    if (out.length) yield* out.splice(0);
    if (n % YIELD_EVERY === 0) await breathe();
  }
  writer.finish();
  yield* out.splice(0);
}
