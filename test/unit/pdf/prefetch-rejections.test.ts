import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptPdfError, extractPdfPages } from '#shared/pdf/index.ts';

/**
 * A three-page PDF with two bytes of its cross-reference table overwritten (found by the PDF fuzz test): pdfjs reads
 * ahead the page-tree kids, fails on the last page, and two of the reads ahead are never awaited. Before the fix
 * each was an unhandled rejection, which ends a Lambda invocation and the local runner's thread.
 */
const damaged = readFileSync(new URL('../../fixtures/pdf/unawaited-page-prefetch.pdf', import.meta.url));

describe('a damaged page tree', () => {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', listener);
  });

  it('fails the document as damaged and leaves no unhandled rejection behind', async () => {
    process.on('unhandledRejection', listener);
    const outcome = await extractPdfPages(damaged, { signal: AbortSignal.timeout(10_000) }).then(
      () => 'read',
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(CorruptPdfError);
    expect((outcome as Error).message).toMatch(/damaged/);
    // Unhandled rejections are reported after the microtask queue drains: give them a few turns of the loop.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.map(String)).toEqual([]);
  });
});
