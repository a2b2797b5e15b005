import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SegmentFormatError } from '#shared/knowledge/index/segment-format.ts';
import { PieceCache } from '#shared/knowledge/piece-cache.ts';
import { eventually } from '#test/support/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-pieces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const piece = (n: number) => new Uint8Array(300).fill(n);
const decode = (raw: Uint8Array) => ({ value: raw[0]!, bytes: raw.length });

describe('segment pieces in memory and on local disk', () => {
  test('memory stays under its bound, least recently used out first; what memory dropped comes back from disk', async () => {
    const cache = new PieceCache({ memoryBytes: 1200, diskBytes: 100_000, diskDir: dir });
    const fetched: number[] = [];
    const get = (n: number) =>
      cache.piece(
        `seg#${n}`,
        async () => {
          fetched.push(n);
          return piece(n);
        },
        decode,
      );
    for (let n = 0; n < 10; n++) expect(await get(n)).toBe(n);
    expect(cache.memoryBytes).toBeLessThanOrEqual(1200);
    await get(9); // recent: from memory
    // Disk writes are best effort, in the background.
    await eventually(async () => readdirSync(dir).length === 10, 5_000, 'the pieces on disk');
    expect(await get(0)).toBe(0); // pushed out of memory, read from disk
    expect(fetched).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(cache.fetched).toEqual({ requests: 10, bytes: 3000 });
  });

  test('the disk tier keeps to its bound too; concurrent requests share one fetch; a damaged piece is not kept', async () => {
    const own = mkdtempSync(join(tmpdir(), 'sb-pieces-'));
    const cache = new PieceCache({ memoryBytes: 600, diskBytes: 2400, diskDir: own });
    let fetches = 0;
    const get = (n: number) =>
      cache.piece(
        `s#${n}`,
        async () => {
          fetches++;
          return piece(n);
        },
        decode,
      );
    await Promise.all([get(1), get(1), get(1)]);
    expect(fetches).toBe(1);
    for (let n = 2; n < 12; n++) await get(n);
    await eventually(async () => readdirSync(own).length === 8, 5_000, 'the disk tier trimmed to its bound');
    const bad = () =>
      cache.piece(
        's#bad',
        async () => piece(1),
        () => {
          throw new SegmentFormatError('damaged');
        },
      );
    await expect(bad()).rejects.toThrow(SegmentFormatError);
    await expect(bad()).rejects.toThrow(SegmentFormatError);
    rmSync(own, { recursive: true, force: true });
  });

  test('values worked out from blocks stay in memory; the blocks, transient, are let go first', async () => {
    const cache = new PieceCache({ memoryBytes: 1200 });
    const fetched: string[] = [];
    const block = (n: number) =>
      cache.piece(
        `seg#b${n}`,
        async () => {
          fetched.push(`b${n}`);
          return piece(n);
        },
        decode,
        { transient: true },
      );
    const worked: string[] = [];
    const value = (n: number) =>
      cache.derived(`seg#v${n}`, async () => {
        worked.push(`v${n}`);
        return { value: (await block(n)) * 10, bytes: 300 };
      });
    expect([await value(1), await value(2)]).toEqual([10, 20]);
    await value(3); // over the bound: block 1, the oldest transient piece, goes; no value does
    expect(cache.memoryBytes).toBeLessThanOrEqual(1200);
    expect([await value(1), await value(2), await value(3)]).toEqual([10, 20, 30]);
    expect(worked).toEqual(['v1', 'v2', 'v3']);
    await block(1);
    expect(fetched).toEqual(['b1', 'b2', 'b3', 'b1']);
  });
});
