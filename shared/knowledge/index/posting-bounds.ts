import { LENGTH_BLOCK, type Postings } from './segment-format.ts';

/** Postings per bound block: the granularity at which a term's best possible score is known. */
export const BOUND_BLOCK = 32;

/**
 * Per block of {@link BOUND_BLOCK} postings of one term: the largest term frequency, the shortest excerpt holding the
 * term, and the largest count of the term any neighbourhood touched by the block can hold (a neighbourhood is three
 * excerpts, so its count is at most the frequencies of the postings within two excerpts of one of its own). These do
 * not depend on the corpus statistics, so they are computed once per decoded postings list and kept with it (the
 * list lives in the piece cache; the bounds are about 5 bytes per 128 postings).
 */
export interface PostingBounds {
  maxTf: Uint8Array;
  minLength: Uint16Array;
  maxWindowTf: Uint16Array;
  /** The shortest neighbourhood (its excerpts' lengths added) the block's postings count in. */
  minWindowLength: Uint32Array;
}

const memo = new WeakMap<object, PostingBounds>();
const floorMemo = new WeakMap<object, PostingBounds>();
/** Excerpt id to its block of lengths: a shift, LENGTH_BLOCK being a power of two. */
const LENGTH_BLOCK_SHIFT = Math.log2(LENGTH_BLOCK);

/**
 * The bounds of `postings` (of the segment whose excerpt lengths are `lengths`); with `floors` instead (format 6: the
 * shortest length per block of lengths, read from the tail), looser bounds that need no excerpt's length.
 */
export function postingBounds(
  postings: Postings,
  lengths: Uint16Array,
  floors?: Uint16Array,
  sameNext?: Uint8Array,
): PostingBounds {
  const key = postings.source ?? postings;
  const known = (floors ? floorMemo : memo).get(key);
  if (known) return known;
  const lengthOf = floors ?? lengths;
  const shift = floors ? LENGTH_BLOCK_SHIFT : 0;
  const { excerpts, tfs } = postings;
  const n = excerpts.length;
  const blocks = Math.ceil(n / BOUND_BLOCK);
  const bounds: PostingBounds = {
    maxTf: new Uint8Array(blocks),
    minLength: new Uint16Array(blocks).fill(0xffff),
    maxWindowTf: new Uint16Array(blocks),
    minWindowLength: new Uint32Array(blocks).fill(0xffffffff),
  };
  // Without the files' edges (or with floors), a neighbourhood is known only to hold the posting's own excerpt.
  const windows = floors ? undefined : sameNext;
  for (let i = 0; i < n; i++) {
    const k = (i / BOUND_BLOCK) | 0;
    const e = excerpts[i]!;
    const tf = tfs[i]!;
    if (tf > bounds.maxTf[k]!) bounds.maxTf[k] = tf;
    const length = lengthOf[e >>> shift]!;
    if (length < bounds.minLength[k]!) bounds.minLength[k] = length;
    let window = tf;
    for (let j = i - 1; j >= 0 && e - excerpts[j]! <= 2; j--) window += tfs[j]!;
    for (let j = i + 1; j < n && excerpts[j]! - e <= 2; j++) window += tfs[j]!;
    if (window > bounds.maxWindowTf[k]!) bounds.maxWindowTf[k] = window;
    const shortest = windows ? shortestWindow(e, lengths, windows) : length;
    if (shortest < bounds.minWindowLength[k]!) bounds.minWindowLength[k] = shortest;
  }
  (floors ? floorMemo : memo).set(key, bounds);
  return bounds;
}

/**
 * The shortest of the neighbourhoods excerpt `e`'s occurrences count in: its own and its neighbours' in the same
 * file, each the lengths of an excerpt and of those either side in its file added (as scoring adds them).
 */
function shortestWindow(e: number, lengths: Uint16Array, sameNext: Uint8Array): number {
  const window = (x: number) =>
    lengths[x]! + (x > 0 && sameNext[x - 1] ? lengths[x - 1]! : 0) + (sameNext[x] ? lengths[x + 1]! : 0);
  let shortest = window(e);
  if (e > 0 && sameNext[e - 1]) shortest = Math.min(shortest, window(e - 1));
  if (sameNext[e]) shortest = Math.min(shortest, window(e + 1));
  return shortest;
}

/** The first index at or after `from` whose excerpt is at least `target` (galloping, then halving). */
export function seek(excerpts: Uint32Array, from: number, target: number): number {
  const n = excerpts.length;
  if (from >= n || excerpts[from]! >= target) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < n && excerpts[hi]! < target) {
    lo = hi;
    step *= 2;
    hi = Math.min(n, hi + step);
  }
  // excerpts[lo] < target; the answer is in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (excerpts[mid]! < target) lo = mid;
    else hi = mid;
  }
  return hi;
}
