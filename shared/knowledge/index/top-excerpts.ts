/** One scored excerpt (a view-wide excerpt id). */
export interface ScoredExcerpt {
  excerpt: number;
  /** 0..1 */
  score: number;
}

/** The `limit` best entries by (score desc, excerpt asc), kept in a heap whose root is the worst kept. */
export class TopExcerpts {
  private readonly heap: ScoredExcerpt[] = [];
  constructor(private readonly limit: number) {}

  private static worse(a: ScoredExcerpt, b: ScoredExcerpt): boolean {
    return a.score < b.score || (a.score === b.score && a.excerpt > b.excerpt);
  }

  /**
   * The score an entry must reach to be kept once the heap is full (an entry scoring exactly this may still be kept,
   * on the tie-break); -Infinity while it is not full, Infinity when it keeps nothing.
   */
  threshold(): number {
    if (!this.limit) return Number.POSITIVE_INFINITY;
    return this.heap.length < this.limit ? Number.NEGATIVE_INFINITY : this.heap[0]!.score;
  }

  push(excerpt: number, score: number): void {
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push({ excerpt, score });
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!TopExcerpts.worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
      return;
    }
    if (!this.limit || !TopExcerpts.worse(heap[0]!, { excerpt, score })) return;
    heap[0] = { excerpt, score };
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && TopExcerpts.worse(heap[l]!, heap[w]!)) w = l;
      if (r < heap.length && TopExcerpts.worse(heap[r]!, heap[w]!)) w = r;
      if (w === i) break;
      [heap[i], heap[w]] = [heap[w]!, heap[i]!];
      i = w;
    }
  }

  /** Best first. */
  sorted(): ScoredExcerpt[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.excerpt - b.excerpt);
  }
}
