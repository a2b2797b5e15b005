import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { adminFunction } from '#shared/auth/index.ts';
import { bindRoutes, route } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

const ADMIN_KEY = 'admin-key-of-sixteen-chars-or-more';

let env: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

const declarations = {
  report: route({
    method: 'POST',
    path: '/projects/{projectId}/reports',
    body: z.strictObject({ text: z.string().check(z.minLength(1)) }),
    idempotent: true,
  }),
  rename: route({ method: 'PATCH', path: '/projects/{projectId}', body: z.strictObject({ name: z.string() }) }),
  upload: route({ method: 'PUT', path: '/projects/{projectId}/files/{fileName}', body: 'raw' }),
  list: route({ method: 'GET', path: '/projects' }),
};

/** The management API preset over four routes that count how often they really run. */
function adminApi() {
  const logger = createLogger('test');
  const runs = { report: 0, rename: 0 };
  const handler = adminFunction({
    logger,
    adminKey: ADMIN_KEY,
    prefix: '/admin/v1',
    idempotency: idempotencyOnDynamo(env.table, logger, 40),
    routes: bindRoutes(declarations, {
      report: async ({ params, body }) =>
        json(202, { projectId: params.projectId, text: body.text, run: ++runs.report }),
      rename: async ({ params, body }) =>
        json(200, { projectId: params.projectId, name: body.name, run: ++runs.rename }),
      upload: async ({ params, body }) => json(202, { fileName: params.fileName, bytes: body.length }),
      list: async ({ query }) => json(200, { limit: query.limit ?? null }),
    }),
  });
  const call = async (
    method: string,
    path: string,
    options: { body?: string; headers?: Record<string, string>; query?: Record<string, string> } = {},
  ) => {
    const event = apiEvent({
      method,
      path,
      body: options.body ?? null,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...options.headers },
    });
    event.queryStringParameters = options.query ?? null;
    const res = await handler(event, lambdaContext);
    return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body || 'null') };
  };
  return { call, runs };
}

describe('adminFunction: the admin key, then routes each behind their own middleware', () => {
  it('refuses a request without the admin key before any route runs', async () => {
    const api = adminApi();
    const res = await api.call('PATCH', '/admin/v1/projects/p1', {
      body: '{"name":"x"}',
      headers: { authorization: 'Bearer wrong' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
    expect(api.runs.rename).toBe(0);
  });

  it('replays an idempotent route for the same key, and runs a route without Idempotency-Key support every time', async () => {
    const api = adminApi();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const first = await api.call('POST', '/admin/v1/projects/p1/reports', { body: '{"text":"hi"}', headers });
    const again = await api.call('POST', '/admin/v1/projects/p1/reports', { body: '{"text":"hi"}', headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(api.runs.report).toBe(1);
    const other = await api.call('POST', '/admin/v1/projects/p1/reports', {
      body: '{"text":"something else"}',
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('IDEMPOTENCY_KEY_REUSED');

    await api.call('PATCH', '/admin/v1/projects/p1', { body: '{"name":"a"}', headers });
    const renamed = await api.call('PATCH', '/admin/v1/projects/p1', { body: '{"name":"a"}', headers });
    expect(renamed.headers['Idempotent-Replayed']).toBeUndefined();
    expect(api.runs.rename).toBe(2);
  });

  it('validates a JSON body against the route schema before the handler, and hands the path parameters', async () => {
    const api = adminApi();
    const invalid = await api.call('PATCH', '/admin/v1/projects/p1', { body: '{"name":1,"extra":true}' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('VALIDATION_ERROR');
    expect(invalid.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['extra', 'name']);
    expect((await api.call('PATCH', '/admin/v1/projects/p1', { body: '{' })).body.error).toBe('INVALID_JSON');
    expect(api.runs.rename).toBe(0);
    const ok = await api.call('PATCH', '/admin/v1/projects/p%201', { body: '{"name":"b"}' });
    expect(ok.body).toEqual({ projectId: 'p 1', name: 'b', run: 1 });
  });

  it('hands a raw route its bytes, and a route its query string', async () => {
    const api = adminApi();
    const upload = await api.call('PUT', '/admin/v1/projects/p1/files/notes.md', { body: 'héllo' });
    expect(upload.body).toEqual({ fileName: 'notes.md', bytes: Buffer.byteLength('héllo') });
    expect((await api.call('GET', '/admin/v1/projects', { query: { limit: '5' } })).body).toEqual({ limit: '5' });
  });

  it('answers 405 with Allow for a known path and 404 for an unknown one', async () => {
    const api = adminApi();
    const wrong = await api.call('DELETE', '/admin/v1/projects/p1');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.Allow).toBe('PATCH');
    expect((await api.call('GET', '/admin/v1/nothing/here')).status).toBe(404);
  });
});
