import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

const health = (token?: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.baseUrl}/api/v1/ai/health`, {
    headers: { ...(token === undefined ? {} : { authorization: token }), ...headers },
  });

describe('GET /api/v1/ai/health', () => {
  it('answers the contract shape with the month balance', async () => {
    const { projectId, token } = await svc.newProject({ companyId: 1042, monthlyBotCredits: 90 });
    const granted = await svc.admin('POST', `/projects/${projectId}/bot-credits`, { amount: 5 });
    expect(granted.status).toBe(200);
    const res = await health(`Bearer ${token}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    const now = new Date();
    expect(body).toEqual({
      success: true,
      companyId: 1042,
      botrag: { ok: true, latenciaMs: expect.any(Number) },
      creditos: { disponivel: 95, mes: `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${now.getUTCFullYear()}` },
      checkedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    expect(res.headers.get('ratelimit-remaining')).toBe('59');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('gives each of the four 401 codes', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'ERR_API_TOKEN_NOT_PROVIDED'],
      ['Basic abc', 'ERR_API_TOKEN_INVALID_FORMAT'],
      ['Bearer sbk_short', 'ERR_API_TOKEN_INVALID_FORMAT'],
      [`Bearer sbk_${'A'.repeat(43)}`, 'ERR_API_TOKEN_INVALID'],
    ];
    for (const [header, code] of cases) {
      const res = await health(header);
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body).toMatchObject({ success: false, error: code, requestId: res.headers.get('x-request-id') });
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('stops a replaced or revoked token on the very next request', async () => {
    const { projectId, token } = await svc.newProject();
    expect((await health(`Bearer ${token}`)).status).toBe(200);
    const replaced = await svc.admin('POST', `/projects/${projectId}/api-token`);
    expect(replaced.status).toBe(201);
    expect(((await (await health(`Bearer ${token}`)).json()) as any).error).toBe('ERR_API_TOKEN_INVALID');
    expect((await health(`Bearer ${replaced.body.token}`)).status).toBe(200);
    expect((await svc.admin('DELETE', `/projects/${projectId}/api-token`)).status).toBe(204);
    expect(((await (await health(`Bearer ${replaced.body.token}`)).json()) as any).error).toBe('ERR_API_TOKEN_INVALID');
  });

  it("follows the project's monthlyBotCredits when the operator changes it, on the token already issued", async () => {
    const { projectId, token } = await svc.newProject({ companyId: 1042, monthlyBotCredits: 90 });
    const available = async () => ((await (await health(`Bearer ${token}`)).json()) as any).creditos.disponivel;
    expect(await available()).toBe(90);
    const raised = await svc.admin('PATCH', `/projects/${projectId}`, { monthlyBotCredits: 250 });
    expect(raised.status).toBe(200);
    expect(raised.body.monthlyBotCredits).toBe(250);
    expect(await available()).toBe(250);
    await svc.admin('PATCH', `/projects/${projectId}`, { monthlyBotCredits: 40 });
    expect(await available()).toBe(40);
    // A token issued afterwards starts from the allowance as it is now.
    const reissued = await svc.admin('POST', `/projects/${projectId}/api-token`);
    expect(reissued.status).toBe(201);
    const res = await health(`Bearer ${reissued.body.token}`);
    expect(((await res.json()) as any).creditos.disponivel).toBe(40);
  });

  it('echoes a well-formed caller request id and replaces a malformed one', async () => {
    const { token } = await svc.newProject();
    const ok = await health(`Bearer ${token}`, { 'x-request-id': 'abc-123:x.y' });
    expect(ok.headers.get('x-request-id')).toBe('abc-123:x.y');
    const bad = await health(undefined, { 'x-request-id': 'has spaces' });
    const id = bad.headers.get('x-request-id');
    expect(id).not.toBe('has spaces');
    expect(((await bad.json()) as any).requestId).toBe(id);
  });
});

describe('GET /healthz (the local runner is up)', () => {
  it('answers ok under the caller request id when it is well formed, else under a fresh one', async () => {
    const echoed = await fetch(`${svc.baseUrl}/healthz`, { headers: { 'x-request-id': 'probe-1:a.b_C' } });
    expect(echoed.status).toBe(200);
    expect(await echoed.json()).toEqual({ ok: true });
    expect(echoed.headers.get('x-request-id')).toBe('probe-1:a.b_C');

    for (const malformed of ['has spaces', 'x'.repeat(129), 'semi;colon']) {
      const res = await fetch(`${svc.baseUrl}/healthz`, { headers: { 'x-request-id': malformed } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(res.headers.get('x-request-id')).not.toBe(malformed);
    }
    const first = (await fetch(`${svc.baseUrl}/healthz`)).headers.get('x-request-id');
    const second = (await fetch(`${svc.baseUrl}/healthz`)).headers.get('x-request-id');
    expect(first).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(second).not.toBe(first);
  });

  it('answers other methods 405 METHOD_NOT_ALLOWED with Allow: GET and the contract error body', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${svc.baseUrl}/healthz`, {
        method,
        headers: { 'x-request-id': `wrong-method-${method}`, 'content-type': 'application/json' },
        body: method === 'DELETE' ? undefined : '{}',
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
      expect(res.headers.get('x-request-id')).toBe(`wrong-method-${method}`);
      expect(await res.json()).toEqual({
        success: false,
        error: 'METHOD_NOT_ALLOWED',
        message: expect.any(String),
        requestId: `wrong-method-${method}`,
      });
    }
    expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
  });
});
