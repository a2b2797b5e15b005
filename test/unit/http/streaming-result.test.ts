import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { streamingResult } from '#shared/http/streaming.ts';

/**
 * What "written to the client" means for the credit rule: the response stream takes a piece only
 * while its destination is alive, and asks for the next one only once it handed the previous one on.
 */
function producer(pieces: string[]) {
  const taken: string[] = [];
  let finished = false;
  async function* run() {
    try {
      for (const piece of pieces) {
        taken.push(piece);
        yield piece;
      }
    } finally {
      finished = true;
    }
  }
  return { run, taken, finished: () => finished };
}

describe('streamingResult', () => {
  it('a destination already gone: no piece is taken, the producer is closed, onClosedEarly runs', async () => {
    const p = producer(['a', 'b']);
    let closedEarly = 0;
    const result = streamingResult(200, {}, p.run(), () => closedEarly++);
    // As the runtime does with a client that left while the answer was prepared: the destination is destroyed in
    // the same turn the body is piped to it.
    const gone = new Writable({ write: (_c, _e, cb) => cb() });
    const piped = pipeline(result.body as unknown as NodeJS.ReadableStream, gone).catch(() => undefined);
    gone.destroy();
    await piped;
    await new Promise((r) => setTimeout(r, 10));
    expect(p.taken).toEqual([]);
    expect(closedEarly).toBe(1);
  });

  it('a live destination gets every piece, in order, and the producer ends', async () => {
    const p = producer(['a', 'b', 'c']);
    const result = streamingResult(200, {}, p.run(), () => {
      throw new Error('not closed early');
    });
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c.toString()));
    await pipeline(result.body as unknown as NodeJS.ReadableStream, sink);
    expect(chunks.join('')).toBe('abc');
    expect(p.finished()).toBe(true);
  });

  it('a destination that goes away mid-stream closes the producer (its finally runs)', async () => {
    const p = producer(['a', 'b', 'c', 'd']);
    let closedEarly = 0;
    const result = streamingResult(200, {}, p.run(), () => closedEarly++);
    const sink = new Writable({
      write(_chunk, _e, cb) {
        cb();
        this.destroy();
      },
    });
    await pipeline(result.body as unknown as NodeJS.ReadableStream, sink).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 10));
    expect(closedEarly).toBe(1);
    expect(p.finished()).toBe(true);
    expect(p.taken.length).toBeLessThan(4);
  });
});
