import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * Polling: a `poller` integration's token reads its project's events oldest first from a cursor (the consumer's only
 * state), filtered like a webhook; the token opens nothing else.
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

async function project() {
  const { projectId, token: apiToken } = await svc.newProject({ companyId: 1042 });
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'sms',
    address: '+5511999990000',
  });
  const channelId = channel.body.channelId as string;
  const event = async (type = 'message.sent', data: Record<string, unknown> = { messageId: 'm' }) => {
    const res = await svc.admin('POST', `/projects/${projectId}/events`, { channelId, type, data });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.eventId as string;
  };
  const poller = async (body: Record<string, unknown> = {}) => {
    const res = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'poller', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { integrationId: string; token: string; product: string };
  };
  return { projectId, apiToken, channelId, event, poller };
}

async function poll(token: string, query: Record<string, string | number> = {}) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${svc.baseUrl}/api/integration/events?${qs}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Reads the whole log from the start, a page at a time, until caught up with at least `count` events. */
async function readAll(token: string, count: number, limit = 100) {
  return eventually(
    async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await poll(token, { limit, ...(cursor ? { cursor } : {}) });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        expect(typeof page.body.nextCursor).toBe('string');
        ids.push(...page.body.items.map((e: any) => e.id));
        cursor = page.body.nextCursor;
        if (page.body.done) break;
      }
      return ids.length >= count ? { ids, cursor: cursor! } : undefined;
    },
    20_000,
    `${count} events`,
  );
}

describe('pollers', () => {
  it('reads every kept event oldest first, those before the poller too, and resumes from its cursor', async () => {
    const p = await project();
    const early = [await p.event(), await p.event('message.delivered')];
    const poller = await p.poller();
    expect(poller.product).toBe('poller');
    expect(poller.token).toMatch(/^sbp_/);
    const later = [await p.event(), await p.event('message.read'), await p.event()];
    const { ids, cursor } = await readAll(poller.token, 5, 2);
    expect(ids).toEqual([...early, ...later]);

    // Caught up: the cursor gives nothing more, then the next event.
    const caughtUp = await poll(poller.token, { cursor });
    expect(caughtUp.body).toMatchObject({ items: [], done: true });
    const next = await p.event();
    const resumed = await eventually(async () => {
      const page = await poll(poller.token, { cursor: caughtUp.body.nextCursor });
      return page.body.items.length ? page.body : undefined;
    }, 20_000);
    expect(resumed.items.map((e: any) => e.id)).toEqual([next]);
    expect(resumed.items[0]).toMatchObject({ type: 'message.sent', projectId: p.projectId });
  });

  it('filters like a webhook: eventTypes and filter', async () => {
    const p = await project();
    const poller = await p.poller({
      eventTypes: ['message.sent', 'message.received'],
      filter: { all: [{ field: 'data.to', op: 'prefix', value: '+55' }] },
    });
    const kept = await p.event('message.sent', { messageId: 'a', to: '+5511' });
    await p.event('message.sent', { messageId: 'b', to: '+1202' });
    await p.event('message.delivered', { messageId: 'c', to: '+5511' });
    const marker = await svc.admin('POST', `/projects/${p.projectId}/events`, {
      channelId: p.channelId,
      type: 'message.received',
      data: { messageId: 'd', to: '+5599' },
    });
    const { ids } = await readAll(poller.token, 2);
    expect(ids).toEqual([kept, marker.body.eventId]);
  });

  it('refuses a cursor it did not issue for this poller, and a limit out of bounds', async () => {
    const p = await project();
    const a = await p.poller();
    const b = await p.poller();
    await p.event();
    const { cursor } = await readAll(a.token, 1);
    expect((await poll(a.token, { cursor })).status).toBe(200);
    for (const bad of [`${cursor}x`, 'WyJrM2Y5YTFiMiJd', 'not a cursor']) {
      const res = await poll(a.token, { cursor: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    const other = await poll(b.token, { cursor });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('VALIDATION_ERROR');
    for (const limit of [0, 251, 'x']) expect((await poll(a.token, { limit })).status, String(limit)).toBe(400);
  });

  it('opens nothing else with a poller token, and nothing opens the poll route but one', async () => {
    const p = await project();
    const poller = await p.poller();
    const bearer = { authorization: `Bearer ${poller.token}`, 'content-type': 'application/json' };
    const send = await fetch(`${svc.baseUrl}/api/integration/generic`, { method: 'POST', headers: bearer, body: '{}' });
    expect(send.status).toBe(401);
    const admin = await fetch(`${svc.baseUrl}/admin/v1/projects/${p.projectId}`, { headers: bearer });
    expect(admin.status).toBe(401);
    const conversation = await fetch(`${svc.baseUrl}/api/integration/conversations/%2B5511`, { headers: bearer });
    expect(conversation.status).toBe(401);
    const bots = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: bearer });
    expect(bots.status).toBe(401);
    expect((await poll(p.apiToken)).status).toBe(401);
    expect((await poll('sbp_not-a-real-token-at-all-0000000000000')).status).toBe(401);

    // Rotated: the old token stops at once; deleted: the new one too.
    const rotated = await svc.admin(
      'POST',
      `/projects/${p.projectId}/integrations/${poller.integrationId}/rotate-token`,
    );
    expect(rotated.status).toBe(200);
    expect((await poll(poller.token)).status).toBe(401);
    expect((await poll(rotated.body.token)).status).toBe(200);
    await svc.admin('DELETE', `/projects/${p.projectId}/integrations/${poller.integrationId}`);
    expect((await poll(rotated.body.token)).status).toBe(401);
  });
});
