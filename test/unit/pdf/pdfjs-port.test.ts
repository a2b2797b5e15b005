import { describe, expect, it } from 'vitest';
import { copyMessage } from '#shared/pdf/pdfjs.ts';

/** The in-thread pdfjs port copies messages itself; it must behave as structuredClone does for what pdfjs sends. */
describe('copyMessage', () => {
  it('deep-copies plain data, so the sender may reuse its arrays', () => {
    const fnArray = [1, 2, 3];
    const message = { chunk: { fnArray, argsArray: [[1, 'a'], null], nested: { ok: true, n: undefined } } };
    const copied = copyMessage(message) as typeof message;
    fnArray.length = 0;
    expect(copied).toEqual({
      chunk: { fnArray: [1, 2, 3], argsArray: [[1, 'a'], null], nested: { ok: true, n: undefined } },
    });
    expect(copied.chunk.nested).not.toBe(message.chunk.nested);
  });

  it('copies typed arrays unless their buffer is transferred', () => {
    const kept = new Uint8Array([1, 2, 3]);
    const moved = new Uint8ClampedArray([4, 5]);
    const copied = copyMessage({ kept, moved }, [moved.buffer]) as { kept: Uint8Array; moved: Uint8ClampedArray };
    expect(copied.kept).toEqual(kept);
    expect(copied.kept).not.toBe(kept);
    expect(copied.moved).toBe(moved);
  });

  it('falls back to structuredClone for Maps, errors and cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const copied = copyMessage({ map: new Map([['k', 1]]), error: new TypeError('boom'), cyclic }) as any;
    expect(copied.map.get('k')).toBe(1);
    expect(copied.error).toBeInstanceOf(Error);
    expect(copied.error.message).toBe('boom');
    expect(copied.cyclic.self).toBe(copied.cyclic);
  });
});
