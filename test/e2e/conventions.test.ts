import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

describe('the local gateway and the management API', () => {
  it('answers unknown paths 404 NOT_FOUND and wrong methods 405 with Allow, in the contract shape', async () => {
    const missing = await fetch(`${svc.baseUrl}/api/v2/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      success: false,
      error: 'NOT_FOUND',
      requestId: missing.headers.get('x-request-id'),
    });
    const wrong = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(((await wrong.json()) as any).error).toBe('METHOD_NOT_ALLOWED');
    const adminWrong = await svc.admin('PUT', '/projects');
    expect(adminWrong.status).toBe(405);
    expect(adminWrong.headers.get('allow')).toBe('GET, POST');
  });

  it('refuses the management API without the admin key', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${svc.adminKey}`]) {
      const res = await fetch(`${svc.baseUrl}/admin/v1/projects/prj_x`, {
        headers: authorization ? { authorization } : {},
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error).toBe('UNAUTHORIZED');
    }
  });

  it('validates project creation and answers 404 for unknown projects', async () => {
    const bad = await svc.admin('POST', '/projects', { companyId: 0, name: '', monthlyBotCredits: -1, plan: 'gold' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.path).sort()).toEqual(['companyId', 'monthlyBotCredits', 'name', 'plan']);
    const created = await svc.admin('POST', '/projects', { companyId: 7, name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      projectId: expect.stringMatching(/^prj_/),
      companyId: 7,
      name: 'Acme',
      monthlyBotCredits: 0,
      contactEmail: null,
      limits: { sendsPerSecond: null, eventsPerSecond: null },
      portal: { allowedOrigins: [] },
      externalId: expect.stringMatching(/^sbx_/),
    });
    expect((await svc.admin('GET', `/projects/${created.body.projectId}`)).body).toEqual(created.body);
    expect((await svc.admin('GET', '/projects/prj_missing')).status).toBe(404);
    expect((await svc.admin('POST', '/projects/prj_missing/api-token')).status).toBe(404);
    expect((await svc.admin('POST', `/projects/${created.body.projectId}/bot-credits`, { amount: 0 })).status).toBe(
      400,
    );
  });

  it('lists projects newest first, page by page, and tells whether a project has an API token', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await svc.admin('POST', '/projects', { companyId: 500 + i, name: `P${i}` })).body.projectId);
    // The group's other files create projects at the same time: walk pages of two until ours are all seen, then
    // check their order among themselves.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await svc.admin('GET', `/projects?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((p: any) => p.projectId));
      cursor = page.body.nextCursor;
    } while (cursor && !ids.every((id) => seen.includes(id)));
    expect(seen.filter((id) => ids.includes(id))).toEqual([ids[2], ids[1], ids[0]]);

    const state = () => svc.admin('GET', `/projects/${ids[0]}/api-token`);
    expect((await state()).body).toEqual({ active: false });
    const issued = await svc.admin('POST', `/projects/${ids[0]}/api-token`);
    const active = (await state()).body;
    expect(active).toEqual({ active: true, issuedAt: expect.any(String) });
    expect(JSON.stringify(active)).not.toContain(issued.body.token);
    await svc.admin('DELETE', `/projects/${ids[0]}/api-token`);
    expect((await state()).body).toEqual({ active: false });
    expect((await svc.admin('GET', '/projects/prj_missing/api-token')).status).toBe(404);
  });

  it('rejects a JSON body over 10 MB with 413 before parsing it', async () => {
    const res = await fetch(`${svc.baseUrl}/admin/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'application/json' },
      body: `{"name":"${'x'.repeat(10 * 1024 * 1024)}"}`,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('Bots API rate limit through the gateway', () => {
  it('lets a burst of 60 of 200 simultaneous requests through (plus one per second they took to arrive), the rest 429', async () => {
    const { token } = await svc.newProject();
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    // The bucket refills one request per second of arrival spread (GCRA); exactly 60 when they arrive in the same
    // instant is asserted against the limiter itself (test/integration/ratelimit).
    const refills = Math.floor((Date.now() - started) / 1000);
    expect(ok.length).toBeGreaterThanOrEqual(60);
    expect(ok.length).toBeLessThanOrEqual(60 + refills);
    expect(ok.length + limited.length).toBe(200);
    const sample = limited[0]!;
    expect(sample.headers.get('retry-after')).toBe('1');
    expect(sample.headers.get('ratelimit-limit')).toBe('60');
    expect(sample.headers.get('ratelimit-remaining')).toBe('0');
    expect(((await sample.json()) as any).error).toBe('ERR_PUBLIC_AI_RATE_LIMIT');
    // A bad token is refused before the limiter: 401, never 429.
    const bad = await fetch(`${svc.baseUrl}/api/v1/ai/health`, {
      headers: { authorization: `Bearer sbk_${'B'.repeat(43)}` },
    });
    expect(bad.status).toBe(401);
    await Promise.all(responses.map((r) => (r.bodyUsed ? undefined : r.body?.cancel())));
  });
});
