import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { DynamoEventLog } from '#shared/polling/adapters/dynamo-event-log.ts';
import { MAX_PAGE_BYTES, makePollEvents } from '#shared/polling/poll-events.ts';
import { readAhead } from '#shared/polling/read-ahead.ts';
import { sealedCursors } from '#shared/polling/wiring.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/** A poller's pages over the log in dynalite: bounded in bytes as a Lambda answer must be, nothing skipped. */
let env: { table: DynamoTable; close(): Promise<void> };
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

describe("a poller's page", () => {
  it('ends before the event that would take it past its bytes, and the next page starts with that event', async () => {
    const projectId = `prj_${randomBytes(4).toString('hex')}`;
    let at = Date.now() - 60_000;
    const log = new DynamoEventLog(env.table, () => at++);
    // 30 events of about 190 KB (inline bodies go up to 200 KB): a page of 250 of them would be 5.7 MB.
    const ids = Array.from({ length: 30 }, (_, i) => `evt_${String(i).padStart(3, '0')}`);
    for (let i = 0; i < ids.length; i += 5) {
      await log.append(
        ids.slice(i, i + 5).map((eventId) => ({
          projectId,
          eventId,
          eventType: 'message.sent',
          body: JSON.stringify({ id: eventId, data: { text: 'é'.repeat(95_000) } }),
        })),
      );
    }
    const poll = makePollEvents({
      log: readAhead(new DynamoEventLog(env.table)),
      cursors: sealedCursors(createSecretBox(randomBytes(32).toString('base64'))),
      bodyOf: async () => undefined,
      settleMs: 5_000,
    });
    const poller = { projectId, integrationId: 'int_1', rules: { accepts: () => true } };
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await poll(poller, { limit: 250, ...(cursor ? { cursor } : {}) });
      const bytes = page.items.reduce((sum, item) => sum + Buffer.byteLength(item), 0);
      expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      seen.push(...page.items.map((item) => JSON.parse(item).id));
      cursor = page.nextCursor;
      if (page.done) break;
      expect(page.items.length).toBe(Math.floor(MAX_PAGE_BYTES / Buffer.byteLength(page.items[0]!)));
    }
    expect(seen).toEqual(ids);
  });
});
