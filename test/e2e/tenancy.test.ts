import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { codeOf, openPortal } from './tenancy-support.ts';

/**
 * Project keys, portal sessions and the audit log as a customer's script and browser meet them: keys shown once and
 * refused at once when revoked, one project only, credits and limits the operator's, a link that opens once, and
 * every change in the audit log with who made it and what moved.
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

async function as(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${svc.baseUrl}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function keyOf(projectId: string, role: string, name = role) {
  const created = await svc.admin('POST', `/projects/${projectId}/keys`, { name, role });
  expect(created.status).toBe(201);
  return created.body as { keyId: string; key: string };
}

describe('project keys', () => {
  it('is shown once, listed without the key, records lastUsedAt, and is refused at once when revoked', async () => {
    const { projectId } = await svc.newProject();
    const created = await svc.admin('POST', `/projects/${projectId}/keys`, { name: 'CI', role: 'developer' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'CI', role: 'developer', keyId: expect.stringMatching(/^key_/) });
    expect(created.body.key).toMatch(/^sbm_[A-Za-z0-9_-]{32,}$/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    expect((await as(created.body.key, 'GET', `/projects/${projectId}/bots`)).status).toBe(200);
    const listed = await svc.admin('GET', `/projects/${projectId}/keys`);
    expect(listed.body.items).toEqual([
      {
        keyId: created.body.keyId,
        name: 'CI',
        role: 'developer',
        createdAt: created.body.createdAt,
        lastUsedAt: expect.any(String),
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    expect((await svc.admin('DELETE', `/projects/${projectId}/keys/${created.body.keyId}`)).status).toBe(204);
    const refused = await as(created.body.key, 'GET', `/projects/${projectId}/bots`);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('UNAUTHORIZED');
    expect((await svc.admin('DELETE', `/projects/${projectId}/keys/${created.body.keyId}`)).status).toBe(404);
  });

  it('acts on its own project alone: another project reads as no project, and the listing holds its own', async () => {
    const mine = await svc.newProject();
    const theirs = await svc.newProject();
    const { key } = await keyOf(mine.projectId, 'admin');
    const notYours = await as(key, 'GET', `/projects/${theirs.projectId}`);
    const noSuch = await as(key, 'GET', '/projects/prj_doesnotexist0000000');
    expect(notYours.status).toBe(404);
    expect(noSuch.status).toBe(404);
    const strip = (b: any) => ({ ...b, requestId: undefined, message: b.message.replace(/prj_\w+/, 'X') });
    expect(strip(notYours.body)).toEqual(strip(noSuch.body));

    const listed = await as(key, 'GET', '/projects');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: any) => p.projectId)).toEqual([mine.projectId]);
    expect((await as(key, 'POST', '/projects', { companyId: 1, name: 'New' })).status).toBe(403);
  });

  it('leaves credits and limits to the operator', async () => {
    const { projectId } = await svc.newProject();
    const { key } = await keyOf(projectId, 'admin');
    expect((await as(key, 'PATCH', `/projects/${projectId}`, { monthlyBotCredits: 10 })).body.error).toBe('FORBIDDEN');
    expect((await as(key, 'PATCH', `/projects/${projectId}`, { limits: { sendsPerSecond: 5 } })).status).toBe(403);
    expect((await as(key, 'POST', `/projects/${projectId}/bot-credits`, { amount: 5 })).status).toBe(403);
    const channel = { type: 'sms', name: 'SMS', address: '+15005550006' };
    expect((await as(key, 'POST', `/projects/${projectId}/channels`, { ...channel, credits: 5 })).status).toBe(403);
    const made = await as(key, 'POST', `/projects/${projectId}/channels`, channel);
    expect(made.status).toBe(201);
    expect(
      (await as(key, 'POST', `/projects/${projectId}/channels/${made.body.channelId}/credits`, { amount: 1 })).status,
    ).toBe(403);
    // The project's admin may change the rest; the operator sets credits.
    expect((await as(key, 'PATCH', `/projects/${projectId}`, { name: 'Renamed' })).status).toBe(200);
    const operator = await svc.admin('PATCH', `/projects/${projectId}`, { monthlyBotCredits: 10 });
    expect(operator.status).toBe(200);
    expect(operator.body.monthlyBotCredits).toBe(10);
  });

  it('follows its role: a viewer reads, a developer cannot manage keys, and neither opens the Bots API or sends', async () => {
    const { projectId } = await svc.newProject();
    const viewer = await keyOf(projectId, 'viewer');
    const developer = await keyOf(projectId, 'developer');
    expect((await as(viewer.key, 'GET', `/projects/${projectId}/integrations`)).status).toBe(200);
    expect((await as(viewer.key, 'POST', `/projects/${projectId}/bots`, { name: 'B', instructions: 'x' })).status).toBe(
      403,
    );
    expect((await as(viewer.key, 'GET', `/projects/${projectId}/audit`)).status).toBe(403);
    expect(
      (await as(developer.key, 'POST', `/projects/${projectId}/bots`, { name: 'B', instructions: 'x' })).status,
    ).toBe(201);
    expect((await as(developer.key, 'GET', `/projects/${projectId}/keys`)).status).toBe(403);
    expect((await as(developer.key, 'GET', `/projects/${projectId}/audit`)).status).toBe(200);

    const bots = await svc.botsApi(developer.key, 'completion', { botId: 'bot_x', prompt: 'hi' });
    expect(bots.status).toBe(401);
    const sent = await svc.send(developer.key, { to: '+5511999990000', body: 'hi' });
    expect(sent.status).toBe(401);
  });
});

describe('portal sessions', () => {
  it('opens once, within its project, with an HttpOnly cookie and a CSRF token for changes', async () => {
    const { projectId } = await svc.newProject();
    const link = await svc.admin('POST', `/projects/${projectId}/portal-sessions`, {
      role: 'developer',
      ttlSeconds: 600,
    });
    expect(link.status).toBe(201);
    expect(link.body.url.startsWith(`${svc.baseUrl}/portal?project=${projectId}#code=`)).toBe(true);
    const code = codeOf(link.body.url);
    expect(code).toMatch(/^sbp_/);

    const opened = await openPortal(svc.baseUrl, code, projectId);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ kind: 'portal', projectId, role: 'developer' });
    expect(opened.setCookie).toMatch(/HttpOnly/);
    expect(Date.parse(opened.body.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);
    expect((await openPortal(svc.baseUrl, code, projectId)).status).toBe(401);

    const cookie = { cookie: opened.cookie! };
    const read = await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}/bots`, { headers: cookie });
    expect(read.status).toBe(200);
    const bot = { name: 'B', instructions: 'x' };
    const post = (headers: Record<string, string>) =>
      fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}/bots`, {
        method: 'POST',
        headers: { ...cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(bot),
      });
    expect((await post({})).status).toBe(403);
    expect((await post({ 'x-csrf-token': 'f'.repeat(64) })).status).toBe(403);
    expect((await post({ 'x-csrf-token': opened.csrfToken! })).status).toBe(201);
  });

  it('refuses tampered and other-project codes and cookies alike, and ends every session at once', async () => {
    const a = await svc.newProject();
    const b = await svc.newProject();
    const linkA = await svc.admin('POST', `/projects/${a.projectId}/portal-sessions`, { role: 'admin' });
    // A link edited to name another project opens nothing (and the code is spent).
    expect((await openPortal(svc.baseUrl, codeOf(linkA.body.url), b.projectId)).status).toBe(401);
    const tampered = `${codeOf(linkA.body.url).slice(0, -2)}AA`;
    expect((await openPortal(svc.baseUrl, tampered)).status).toBe(401);

    const linkB = await svc.admin('POST', `/projects/${b.projectId}/portal-sessions`, { role: 'admin' });
    const sessionB = await openPortal(svc.baseUrl, codeOf(linkB.body.url));
    const cookieB = sessionB.cookie!;
    const other = await fetch(`${svc.baseUrl}/admin/v1/projects/${a.projectId}`, { headers: { cookie: cookieB } });
    expect(other.status).toBe(404);
    // The cookie rewritten to name project A: no such session there.
    const rewritten = cookieB.replace(b.projectId, a.projectId);
    expect(
      (await fetch(`${svc.baseUrl}/admin/v1/projects/${a.projectId}`, { headers: { cookie: rewritten } })).status,
    ).toBe(401);

    const unused = await svc.admin('POST', `/projects/${b.projectId}/portal-sessions`, { role: 'viewer' });
    expect((await svc.admin('DELETE', `/projects/${b.projectId}/portal-sessions`)).status).toBe(204);
    expect(
      (await fetch(`${svc.baseUrl}/admin/v1/projects/${b.projectId}`, { headers: { cookie: cookieB } })).status,
    ).toBe(401);
    expect((await openPortal(svc.baseUrl, codeOf(unused.body.url))).status).toBe(401);
  });

  it('is made and ended by a project admin only; ttlSeconds within 60 to 86,400', async () => {
    const { projectId } = await svc.newProject();
    const developer = await keyOf(projectId, 'developer');
    const admin = await keyOf(projectId, 'admin');
    expect((await as(developer.key, 'POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer' })).status).toBe(
      403,
    );
    expect((await as(admin.key, 'POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer' })).status).toBe(
      201,
    );
    expect(
      (await svc.admin('POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer', ttlSeconds: 59 })).status,
    ).toBe(400);
    expect(
      (await svc.admin('POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer', ttlSeconds: 86_401 }))
        .status,
    ).toBe(400);
  });
});

describe('audit log', () => {
  it('records who changed what, newest first, with fields before and after and never a secret', async () => {
    const { projectId } = await svc.newProject();
    const developer = await keyOf(projectId, 'developer');
    const bot = await as(developer.key, 'POST', `/projects/${projectId}/bots`, {
      name: 'Support',
      instructions: 'Be brief.',
    });
    const patched = await as(
      developer.key,
      'PATCH',
      `/projects/${projectId}/bots/${bot.body.botId}`,
      { temperature: 0.2 },
      { 'x-request-id': 'audit-test-1' },
    );
    expect(patched.status).toBe(200);
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'http://127.0.0.1:9/hook',
      bearerToken: 'receiver-secret-value',
    });
    expect(webhook.status).toBe(201);
    await svc.admin('POST', `/projects/${projectId}/integrations/${webhook.body.integrationId}/rotate-secret`);
    // A refused change and a read leave nothing.
    await as(developer.key, 'PATCH', `/projects/${projectId}`, { name: 'nope' });
    await as(developer.key, 'GET', `/projects/${projectId}/bots`);

    const log = await svc.admin('GET', `/projects/${projectId}/audit`);
    expect(log.status).toBe(200);
    const actions = log.body.items.map((e: any) => e.action);
    expect(actions).toEqual([
      'POST /admin/v1/projects/{projectId}/integrations/{integrationId}/rotate-secret',
      'POST /admin/v1/projects/{projectId}/integrations',
      'PATCH /admin/v1/projects/{projectId}/bots/{botId}',
      'POST /admin/v1/projects/{projectId}/bots',
      'POST /admin/v1/projects/{projectId}/keys',
      'POST /admin/v1/projects/{projectId}/api-token',
      'POST /admin/v1/projects',
    ]);
    const patch = log.body.items[2];
    expect(patch).toMatchObject({
      actor: { kind: 'key', id: developer.keyId },
      target: bot.body.botId,
      requestId: 'audit-test-1',
      changes: { temperature: [null, 0.2] },
    });
    expect(log.body.items[1].actor).toEqual({ kind: 'admin' });
    expect(log.body.items[1].target).toBe(webhook.body.integrationId);
    const text = JSON.stringify(log.body);
    for (const secret of ['receiver-secret-value', webhook.body.signingSecret, developer.key])
      expect(text).not.toContain(secret);

    const first = await svc.admin('GET', `/projects/${projectId}/audit?limit=2`);
    expect(first.body.items).toHaveLength(2);
    const second = await svc.admin('GET', `/projects/${projectId}/audit?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((e: any) => e.action)).toEqual(actions.slice(2, 4));
  });
});
