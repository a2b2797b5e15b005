import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * One pagination pattern on every list: `?limit&cursor` → `{ items, nextCursor? }`, the
 * same names and bounds everywhere, `nextCursor` absent on the last page. Each list below gets three items of its
 * own and is walked two at a time past its first page; `PAGINATED` is checked against the document's
 * `x-pagination` operations, so a new list without a walk here fails.
 */
let svc: ServiceClient;
let doc: any;

beforeAll(async () => {
  svc = await sharedService();
  doc = await (await fetch(`${svc.baseUrl}/openapi.json`)).json();
});
afterAll(async () => svc?.close());

interface Listing {
  /** The list's path under `/admin/v1`, with its filters. */
  path: string;
  /** The ids this test made, in the order the list gives them. */
  expected: string[];
  idOf: (item: any) => string;
  /** Other tests' items share the list (the project listing is global): only the order of ours is checked. */
  shared?: boolean;
  /** The list's order is not this test's to know: only the set of items is checked. */
  unordered?: boolean;
  /** A list of the integration API (a channel's token), not of the management API: its token. */
  token?: string;
}

/** GET on the management API, or on the integration API with a channel's token. */
async function get(path: string, token?: string): Promise<{ status: number; body: any }> {
  if (!token) return svc.admin('GET', path);
  const res = await fetch(`${svc.baseUrl}/api/integration${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

/** Walks a list `limit` items at a time: every page, its items, and whether each page carried a cursor. */
async function walk(path: string, limit: number, token?: string) {
  const pages: { items: any[]; nextCursor?: string }[] = [];
  let cursor: string | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(Object.keys(res.body).every((k) => k === 'items' || k === 'nextCursor')).toBe(true);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    pages.push(res.body);
    cursor = res.body.nextCursor ?? undefined;
    expect(pages.length).toBeLessThan(1000);
  } while (cursor);
  return pages;
}

const byId =
  <T extends Record<string, string>>(key: keyof T) =>
  (item: T) =>
    item[key]!;

async function project() {
  return (await svc.admin('POST', '/projects', { companyId: 7000, name: 'Pages' })).body.projectId as string;
}

/** Three messages sent to one contact on a new SMS channel (its conversation), with the channel's token. */
async function threeSent() {
  const projectId = await project();
  const channelId = (
    await svc.admin('POST', `/projects/${projectId}/channels`, { type: 'sms', name: 'S', address: '+5511999990000' })
  ).body.channelId;
  const token = (await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId })).body
    .token as string;
  const contact = '+5511988887777';
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(((await (await svc.send(token, { to: contact, body: `m${i}` })).json()) as any).messageId);
  return { ch: { projectId, channelId, token }, contact, ids };
}

/** Each paginated operation of the document, and how to give it three items of this test's own. */
const PAGINATED: Record<string, () => Promise<Listing>> = {
  async listProjects() {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await project());
    return { path: '/projects', expected: ids.reverse(), idOf: byId('projectId'), shared: true };
  },
  async listChannels() {
    const p = await project();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await svc.admin('POST', `/projects/${p}/channels`, {
            type: 'sms',
            name: `S${i}`,
            address: `+551199999000${i}`,
          })
        ).body.channelId,
      );
    return { path: `/projects/${p}/channels`, expected: ids.sort(), idOf: byId('channelId') };
  },
  async listIntegrations() {
    const p = await project();
    const ch = (
      await svc.admin('POST', `/projects/${p}/channels`, { type: 'sms', name: 'S', address: '+5511999990000' })
    ).body.channelId;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await svc.admin('POST', `/projects/${p}/integrations`, { product: 'custom', channelId: ch })).body
          .integrationId,
      );
    return { path: `/projects/${p}/integrations`, expected: ids.sort(), idOf: byId('integrationId') };
  },
  async listBots() {
    const p = await project();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await svc.admin('POST', `/projects/${p}/bots`, { name: `B${i}`, instructions: 'Be brief.' })).body.botId,
      );
    return { path: `/projects/${p}/bots`, expected: ids.sort(), idOf: byId('botId') };
  },
  async listOutboxMessages() {
    const p = await project();
    const ch = (
      await svc.admin('POST', `/projects/${p}/channels`, { type: 'sms', name: 'S', address: '+5511999990000' })
    ).body.channelId;
    const custom = (await svc.admin('POST', `/projects/${p}/integrations`, { product: 'custom', channelId: ch })).body;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        ((await (await svc.send(custom.token, { to: '+5511988887777', body: `m${i}` })).json()) as any).messageId,
      );
    return { path: `/projects/${p}/channels/${ch}/outbox`, expected: ids.reverse(), idOf: byId('messageId') };
  },
  async listDeliveries() {
    const p = await project();
    // Nothing listens on port 9: every attempt fails, and the deliveries are there to list.
    const hook = (
      await svc.admin('POST', `/projects/${p}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: 'http://127.0.0.1:9/h',
      })
    ).body.integrationId;
    for (let i = 0; i < 3; i++) await svc.admin('POST', `/projects/${p}/integrations/${hook}/test`);
    const path = `/projects/${p}/integrations/${hook}/deliveries`;
    const all = await eventually(
      async () => {
        const items = (await svc.admin('GET', `${path}?limit=100`)).body.items as { deliveryId: string }[];
        return items.length === 3 && items;
      },
      30_000,
      'three deliveries',
    );
    return { path, expected: all.map((d) => d.deliveryId), idOf: byId('deliveryId') };
  },
  async listSuppressions() {
    const p = await project();
    const ch = (await svc.admin('POST', `/projects/${p}/channels`, { type: 'sms', name: 'S', address: '+15005550041' }))
      .body.channelId;
    const contacts = ['+5511977770001', '+5511977770002', '+5511977770003'];
    for (const from of contacts)
      await svc.admin('POST', `/projects/${p}/channels/${ch}/sandbox/inbound`, { from, text: 'STOP' });
    const path = `/projects/${p}/channels/${ch}/suppressions`;
    await eventually(
      async () => ((await svc.admin('GET', `${path}?limit=100`)).body.items?.length === 3 ? true : undefined),
      15_000,
      'three suppressions',
    );
    return { path, expected: contacts, idOf: byId('contact') };
  },
  async listChannelMessages() {
    const { ch, contact, ids } = await threeSent();
    return {
      path: `/projects/${ch.projectId}/channels/${ch.channelId}/conversations/${encodeURIComponent(contact)}/messages`,
      expected: ids.reverse(),
      idOf: byId('messageId'),
    };
  },
  async listConversationMessages() {
    const { ch, contact, ids } = await threeSent();
    return {
      path: `/conversations/${encodeURIComponent(contact)}/messages`,
      expected: ids.reverse(),
      idOf: byId('messageId'),
      token: ch.token,
    };
  },
  async listProjectKeys() {
    const p = await project();
    const ids: string[] = [];
    for (const role of ['admin', 'developer', 'viewer'])
      ids.push((await svc.admin('POST', `/projects/${p}/keys`, { name: role, role })).body.keyId);
    return { path: `/projects/${p}/keys`, expected: ids, idOf: byId('keyId'), unordered: true };
  },
  async listAuditEntries() {
    const p = await project();
    for (const role of ['admin', 'developer', 'viewer'])
      await svc.admin('POST', `/projects/${p}/keys`, { name: role, role });
    // Each change above is an entry (and the project's creation may be one): newest first, as the full list gives.
    const path = `/projects/${p}/audit`;
    const all = (await svc.admin('GET', `${path}?limit=100`)).body.items as { id: string }[];
    expect(all.length).toBeGreaterThanOrEqual(3);
    return { path, expected: all.map((e) => e.id), idOf: byId('id') };
  },
  async listScheduledMessages() {
    const { ch } = await threeSent();
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        ((await (await svc.send(ch.token, { to: '+5511988880000', body: `s${i}`, sendAt })).json()) as any).messageId,
      );
    return {
      path: `/projects/${ch.projectId}/channels/${ch.channelId}/scheduled`,
      expected: ids,
      idOf: byId('messageId'),
      unordered: true,
    };
  },
  async listBatches() {
    const { ch } = await threeSent();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${svc.baseUrl}/api/integration/generic/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ch.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ to: '+5511988880000', body: `b${i}` }] }),
      });
      ids.push(((await res.json()) as any).batchId);
    }
    return {
      path: `/projects/${ch.projectId}/channels/${ch.channelId}/batches`,
      expected: ids,
      idOf: byId('batchId'),
      unordered: true,
    };
  },
  async listKnowledgeFiles() {
    const p = await project();
    const bot = (await svc.admin('POST', `/projects/${p}/bots`, { name: 'B', instructions: 'Be brief.' })).body.botId;
    const names = ['a.md', 'b.md', 'c.md'];
    for (const name of names) await svc.putKnowledge(p, bot, name, `# ${name}\n\nSome text.`);
    return { path: `/projects/${p}/bots/${bot}/knowledge`, expected: names, idOf: byId('fileName'), unordered: true };
  },
};

/**
 * The knowledge files listing joins the pattern with its re-implementation: until its operation is marked
 * `x-pagination`, its walk is skipped (and reported as skipped), never passed.
 */
const PENDING = new Set(['listKnowledgeFiles']);
/**
 * A poller's event feed is a log, not a list: every page carries the cursor to resume from (the consumer's only
 * state), so it never ends, and its pages are larger. test/e2e/poller.test.ts walks it.
 */
const OWN_SHAPE = new Set(['listEvents']);

describe('every list pages the same way', () => {
  it('the document marks exactly these lists as paginated, with the same parameters and bounds', () => {
    const paginated: Record<string, any> = {};
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) if (op['x-pagination']) paginated[op.operationId] = op;
    const expected = Object.keys(PAGINATED).filter((id) => !PENDING.has(id) || paginated[id]);
    expect(
      Object.keys(paginated)
        .filter((id) => !OWN_SHAPE.has(id))
        .sort(),
    ).toEqual(expected.sort());
    for (const [id, op] of Object.entries(paginated)) {
      if (OWN_SHAPE.has(id)) continue;
      const param = (name: string) => op.parameters.find((p: any) => p.name === name && p.in === 'query');
      expect(param('limit')?.schema, id).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
      expect(param('cursor')?.schema, id).toMatchObject({ type: 'string', maxLength: 2048 });
      expect(op['x-pagination'], id).toEqual({
        limitParam: 'limit',
        cursorParam: 'cursor',
        cursorField: 'nextCursor',
        itemsField: 'items',
      });
    }
  });

  for (const [operationId, setUp] of Object.entries(PAGINATED)) {
    it(`${operationId}: two at a time past the first page, every item once, no empty last page`, async (ctx) => {
      const marked = Object.values<any>(doc.paths).some((item) =>
        Object.values<any>(item).some((op) => op.operationId === operationId && op['x-pagination']),
      );
      if (!marked && PENDING.has(operationId)) ctx.skip();
      const list = await setUp();
      for (const limit of [2, 1]) {
        const pages = await walk(list.path, limit, list.token);
        const ids = pages.flatMap((p) => p.items.map(list.idOf));
        expect(new Set(ids).size, 'no item twice').toBe(ids.length);
        const ours = list.shared ? ids.filter((id) => list.expected.includes(id)) : ids;
        if (list.unordered) expect([...ours].sort()).toEqual([...list.expected].sort());
        else expect(ours).toEqual(list.expected);
        expect(pages.length).toBeGreaterThan(1);
        expect(pages.slice(0, -1).every((p) => p.nextCursor && p.items.length === limit)).toBe(true);
        const last = pages.at(-1)!;
        expect(last.nextCursor).toBeUndefined();
        expect(last.items.length).toBeGreaterThan(0);
      }
      // The default page holds all three; the bounds and the cursor are checked, never ignored.
      expect((await get(list.path, list.token)).body.items.length).toBeGreaterThanOrEqual(3);
      const sep = list.path.includes('?') ? '&' : '?';
      for (const bad of [
        'limit=0',
        'limit=101',
        'limit=2.5',
        'limit=abc',
        'cursor=',
        'cursor=not-a-cursor',
        'page=2',
      ]) {
        const res = await get(`${list.path}${sep}${bad}`, list.token);
        expect([res.status, res.body.error], bad).toEqual([400, 'VALIDATION_ERROR']);
      }
      expect((await get(`${list.path}${sep}cursor=${'x'.repeat(2049)}`, list.token)).status).toBe(400);
    });
  }

  it("a cursor works only on the list that gave it: another project's, or another list's, answers 400", async () => {
    const a = await PAGINATED.listChannels!();
    const b = await PAGINATED.listChannels!();
    const cursor = (await svc.admin('GET', `${a.path}?limit=1`)).body.nextCursor;
    expect((await svc.admin('GET', `${a.path}?limit=1&cursor=${cursor}`)).status).toBe(200);
    const elsewhere = await svc.admin('GET', `${b.path}?limit=1&cursor=${cursor}`);
    expect([elsewhere.status, elsewhere.body.details?.[0]?.path]).toEqual([400, 'cursor']);
    const bots = await PAGINATED.listBots!();
    expect((await svc.admin('GET', `${bots.path}?cursor=${cursor}`)).status).toBe(400);
    const projects = (await svc.admin('GET', '/projects?limit=1')).body.nextCursor;
    expect((await svc.admin('GET', `${a.path}?cursor=${projects}`)).status).toBe(400);
  });

  it('a filter and the cursor together: pending deliveries only, page by page', async () => {
    const list = await PAGINATED.listDeliveries!();
    // Every attempt fails, so the three wait for their next attempt: pending, none succeeded.
    const pages = await walk(`${list.path}?status=pending`, 2);
    expect(pages.flatMap((p) => p.items.map(list.idOf))).toEqual(list.expected);
    expect((await walk(`${list.path}?status=succeeded`, 2)).flatMap((p) => p.items)).toEqual([]);
    expect((await svc.admin('GET', `${list.path}?status=lost`)).status).toBe(400);
  });
});
