import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * A project's own limits (`limits` on create and PATCH): what the operator sets and reads back, what the API refuses,
 * and what a caller over a limit gets (429 RATE_LIMITED with Retry-After, nothing done).
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

async function project(limits?: unknown) {
  const created = await svc.admin('POST', '/projects', {
    companyId: 4242,
    name: 'Limited',
    ...(limits === undefined ? {} : { limits }),
  });
  return created;
}

/** A sandbox SMS channel of the project and a custom token bound to it. */
async function sandboxChannel(projectId: string) {
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    name: 'SMS',
    type: 'sms',
    address: '+15005550006',
  });
  const custom = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'custom',
    channelId: channel.body.channelId,
  });
  return { channelId: channel.body.channelId as string, token: custom.body.token as string };
}

describe('limits on the project', () => {
  it('are set on create, read back, changed field by field, and given back to the defaults with null', async () => {
    const created = await project({ sendsPerSecond: 5 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.limits).toEqual({ sendsPerSecond: 5, eventsPerSecond: null });
    const id = created.body.projectId;
    const patched = await svc.admin('PATCH', `/projects/${id}`, { limits: { eventsPerSecond: 20 } });
    expect(patched.body.limits).toEqual({ sendsPerSecond: 5, eventsPerSecond: 20 });
    expect((await svc.admin('GET', `/projects/${id}`)).body.limits).toEqual({ sendsPerSecond: 5, eventsPerSecond: 20 });
    const one = await svc.admin('PATCH', `/projects/${id}`, { limits: { sendsPerSecond: null } });
    expect(one.body.limits).toEqual({ sendsPerSecond: null, eventsPerSecond: 20 });
    const all = await svc.admin('PATCH', `/projects/${id}`, { limits: null });
    expect(all.body.limits).toEqual({ sendsPerSecond: null, eventsPerSecond: null });
    const untouched = await svc.admin('PATCH', `/projects/${id}`, { name: 'Renamed' });
    expect(untouched.body.limits).toEqual({ sendsPerSecond: null, eventsPerSecond: null });
  });

  it('a project created without limits shows both as null (the deployment defaults)', async () => {
    const created = await project();
    expect(created.body.limits).toEqual({ sendsPerSecond: null, eventsPerSecond: null });
  });

  it.each([
    [{ sendsPerSecond: 0 }, 'limits.sendsPerSecond'],
    [{ sendsPerSecond: 1.5 }, 'limits.sendsPerSecond'],
    [{ sendsPerSecond: '10' }, 'limits.sendsPerSecond'],
    [{ sendsPerSecond: 1_000_000 }, 'limits.sendsPerSecond'],
    [{ eventsPerSecond: -1 }, 'limits.eventsPerSecond'],
    [{ burst: 3 }, 'limits.burst'],
    ['fast', 'limits'],
  ])('refuses %j: 400 VALIDATION_ERROR naming %s', async (limits, path) => {
    const created = await project(limits);
    expect(created.status).toBe(400);
    expect(created.body.error).toBe('VALIDATION_ERROR');
    expect(created.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});

describe('over a limit', () => {
  it('sends over sendsPerSecond get 429 RATE_LIMITED with Retry-After, and nothing is sent for them', async () => {
    const { projectId } = (await project({ sendsPerSecond: 2 })).body;
    const { channelId, token } = await sandboxChannel(projectId);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => svc.send(token, { to: '+5511988887777', body: `burst ${i}` })),
    );
    const statuses = answers.map((a) => a.status);
    const sent = statuses.filter((s) => s === 200).length;
    // A bucket of two, refilled at two a second: the twelve arrive within a second, so at most four pass.
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBe(12 - sent);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    const outbox = await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox`);
    expect(outbox.body.items).toHaveLength(sent);
  });

  it('reported events over eventsPerSecond get 429 RATE_LIMITED with Retry-After; an Idempotency-Key is not spent on it', async () => {
    const { projectId } = (await project({ eventsPerSecond: 1 })).body;
    const { channelId } = await sandboxChannel(projectId);
    const report = (key?: string) =>
      fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${svc.adminKey}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: JSON.stringify({ channelId, type: 'message.delivered', data: { messageId: 'msg_1' } }),
      });
    const answers = await Promise.all(Array.from({ length: 6 }, () => report()));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(2);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'RATE_LIMITED' });
    // A refused request with a key leaves the key free: the same key succeeds once the bucket has room again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const key = `report-${attempt}`;
      await Promise.all(Array.from({ length: 3 }, () => report()));
      if ((await report(key)).status !== 429) continue;
      await eventually(async () => (await report(key)).status === 202, 5_000, 'the refused key accepted');
      return;
    }
    throw new Error('no keyed report was refused right after the bucket was drained');
  });

  it("an operator's PATCH applies to the next requests within seconds", async () => {
    const { projectId } = (await project()).body;
    const { token } = await sandboxChannel(projectId);
    expect((await svc.send(token, { to: '+5511988887777', body: 'before' })).status).toBe(200);
    await svc.admin('PATCH', `/projects/${projectId}`, { limits: { sendsPerSecond: 1 } });
    await eventually(
      async () => {
        const burst = await Promise.all(
          Array.from({ length: 5 }, () => svc.send(token, { to: '+5511988887777', body: 'after' })),
        );
        return burst.some((a) => a.status === 429);
      },
      20_000,
      'a 429 under the new limit',
    );
  });

  it("one project's limit is its own: another project's sends pass while the first is refused", async () => {
    const limited = (await project({ sendsPerSecond: 1 })).body.projectId;
    const other = (await project()).body.projectId;
    const a = await sandboxChannel(limited);
    const b = await sandboxChannel(other);
    const flood = await Promise.all(
      Array.from({ length: 8 }, () => svc.send(a.token, { to: '+5511988887777', body: 'x' })),
    );
    expect(flood.some((r) => r.status === 429)).toBe(true);
    const others = await Promise.all(
      Array.from({ length: 8 }, () => svc.send(b.token, { to: '+5511988887777', body: 'y' })),
    );
    expect(others.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});
