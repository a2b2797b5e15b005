import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { DynamoEventLog } from '#shared/polling/adapters/dynamo-event-log.ts';
import type { EventLog } from '#shared/polling/event-log.ts';
import { readAhead, type ReadAheadLimits } from '#shared/polling/read-ahead.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * A consumer catching up is read several pages ahead: against dynalite, what every page returns must be exactly what
 * the log itself returns from the same position (nothing skipped, nothing twice, the same order), with fewer reads.
 */
let env: { table: DynamoTable; close(): Promise<void> };
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

const T0 = Date.now() - 3_600_000;

/** `n` events of one project, stored in batches of 25 a millisecond apart from `T0`; bodies of 20 to 300 characters. */
async function seed(n: number, startMs = T0) {
  const projectId = `prj_${randomBytes(4).toString('hex')}`;
  let at = startMs;
  const log = new DynamoEventLog(env.table, () => at);
  for (let i = 0; i < n; i += 25) {
    await log.append(
      Array.from({ length: Math.min(25, n - i) }, (_, j) => ({
        projectId,
        eventId: `evt_${String(i + j).padStart(6, '0')}`,
        eventType: 'message.sent',
        body: JSON.stringify({ n: i + j, pad: 'x'.repeat((i + j) % 280) }),
      })),
    );
    at++;
  }
  return projectId;
}

/** The log, counting its reads. */
function counted(log: Pick<EventLog, 'read'>) {
  const counter = { reads: 0 };
  return {
    counter,
    log: {
      read: (...args: Parameters<EventLog['read']>) => {
        counter.reads++;
        return log.read(...args);
      },
    },
  };
}

/** Every page from the start as a consumer walks them (limits taken in turn), each page's event ids. */
async function walk(log: Pick<EventLog, 'read'>, projectId: string, limits: number[], beforeMs = Date.now()) {
  const pages: string[][] = [];
  let after = '';
  for (let i = 0; ; i++) {
    const page = await log.read(projectId, after, beforeMs, limits[i % limits.length]!);
    pages.push(page.items.map((e) => e.eventId));
    after = page.next;
    if (page.exhausted) return pages;
    if (pages.length > 2_000) throw new Error('the walk does not end');
  }
}

describe('reading ahead of a consumer catching up', () => {
  it('serves every page as the log would, with one read per several pages', async () => {
    const projectId = await seed(2_600);
    const plain = counted(new DynamoEventLog(env.table));
    const ahead = counted(new DynamoEventLog(env.table));
    const expected = await walk(plain.log, projectId, [250]);
    const served = await walk(readAhead(ahead.log), projectId, [250]);
    expect(served).toEqual(expected);
    expect(served.flat()).toEqual(Array.from({ length: 2_600 }, (_, i) => `evt_${String(i).padStart(6, '0')}`));
    // The first page is read as asked (no one is known to continue), then 1,000 at a time: 250 + 3 × 1,000 ... .
    expect(plain.counter.reads).toBe(11);
    expect(ahead.counter.reads).toBeLessThanOrEqual(4);
  });

  it('reads only the page where nobody continues: a position it did not hand out, or another project', async () => {
    const projectId = await seed(600);
    const ahead = counted(new DynamoEventLog(env.table));
    const log = readAhead(ahead.log);
    const first = await log.read(projectId, '', Date.now(), 100);
    expect(first.items).toHaveLength(100);
    // From another position than the page's end: a plain page of the size asked for, nothing more read.
    const elsewhere = await log.read(projectId, first.items[49]!.position, Date.now(), 10);
    expect(elsewhere.items.map((e) => e.eventId)).toEqual(first.items.slice(50, 60).map((e) => e.eventId));
    expect(ahead.counter.reads).toBe(2);
    const other = await seed(30);
    expect((await log.read(other, '', Date.now(), 100)).items).toHaveLength(30);
  });

  it('keeps within its bytes, and pages stay exact whatever the limits, the bound and other readers', async () => {
    const projectId = await seed(600);
    const expected = (await walk(new DynamoEventLog(env.table), projectId, [250])).flat();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 20, max: 250 }), { minLength: 1, maxLength: 6 }),
        fc.record<ReadAheadLimits>({
          events: fc.integer({ min: 1, max: 1_000 }),
          entryBytes: fc.integer({ min: 1, max: 200_000 }),
          totalBytes: fc.integer({ min: 1, max: 400_000 }),
          entries: fc.integer({ min: 1, max: 5 }),
          keepMs: fc.constant(60_000),
        }),
        async (pageLimits, limits) => {
          const log = readAhead(new DynamoEventLog(env.table), limits);
          // Two consumers of the project side by side on the same instance, each walking it whole.
          const [a, b] = await Promise.all([
            walk(log, projectId, pageLimits),
            walk(log, projectId, [...pageLimits].reverse()),
          ]);
          expect(a.flat()).toEqual(expected);
          expect(b.flat()).toEqual(expected);
        },
      ),
      { numRuns: 12 },
    );
  }, 60_000);

  it('goes on past what it read ahead once more has settled: caught up only as of the latest bound', async () => {
    const projectId = await seed(300);
    const log = readAhead(new DynamoEventLog(env.table));
    const bound = Date.now();
    const first = await log.read(projectId, '', bound, 100);
    const second = await log.read(projectId, first.next, bound, 100);
    expect(second.items).toHaveLength(100);
    // An event stored at the bound of the read ahead (so not in it), served once a later bound takes it in.
    const late = new DynamoEventLog(env.table, () => bound);
    await late.append([{ projectId, eventId: 'evt_late', eventType: 'message.sent', body: '{}' }]);
    const third = await log.read(projectId, second.next, bound + 2, 250);
    expect(third.items.map((e) => e.eventId)).toEqual(
      Array.from({ length: 100 }, (_, i) => `evt_${String(200 + i).padStart(6, '0')}`),
    );
    expect(third.exhausted).toBe(false);
    const fourth = await log.read(projectId, third.next, bound + 2, 250);
    expect(fourth.items.map((e) => e.eventId)).toEqual(['evt_late']);
    expect(fourth.exhausted).toBe(true);
  });
});
