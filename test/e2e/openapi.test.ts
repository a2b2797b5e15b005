import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { route, type RouteDeclaration } from '#shared/http/router.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { ERROR_CODES } from '#shared/contract/error-codes.ts';
import * as S from '#shared/openapi/schemas.ts';
import { routes } from '#shared/contract/routes.ts';
import type * as z from '#shared/kernel/validation/zod.ts';
import { parseCompletionRequest } from '#shared/completion/index.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { chromium, ensureConsoleBuilt, launchBrowser } from '#test/console/browser.ts';
import { describeNeeding } from '#test/support/prerequisites.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

// Every code the API answers with (docs/reference/errors.md). When the spec folder sits beside the
// repository (as in CI), the codes are also read from it, so a code added there fails this test until documented.
const CONTRACT_CODES = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'FILE_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'UNAUTHORIZED',
  'ERR_NO_PERMISSION',
  'CHANNEL_NOT_FOUND',
  'PROVIDER_ERROR',
  'GONE',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
  'ERR_API_TOKEN_NOT_PROVIDED',
  'ERR_API_TOKEN_INVALID_FORMAT',
  'ERR_API_TOKEN_INVALID',
  'ERR_API_TOKEN_AUTHENTICATION_FAILED',
  'ERR_PUBLIC_AI_RATE_LIMIT',
  'ERR_NO_BOT_CREDITS',
  'BOT_FORBIDDEN',
  'BOT_NOT_FOUND',
  'GENERATION_FAILED',
  'EXTRACTION_FAILED',
  'GATEWAY_TIMEOUT',
  'INTERNAL_ERROR',
];

function codesFromSpec(): string[] {
  const dir = fileURLToPath(new URL('../../../shared/spec/', import.meta.url));
  const found = new Set<string>();
  for (const name of ['contract.md', 'messaging-and-bots-api.md']) {
    const file = `${dir}${name}`;
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b\d{3} `([A-Z][A-Z0-9_]+)`/g)) found.add(m[1]!);
    for (const m of text.matchAll(/^\| \d{3} \| ([A-Z][A-Z0-9_, ]+) \|/gm))
      for (const code of m[1]!.split(/,\s*/)) found.add(code.trim());
    for (const m of text.matchAll(/`(BOT_FORBIDDEN|BOT_NOT_FOUND|[A-Z]+_FAILED)`/g)) found.add(m[1]!);
  }
  return [...found];
}

let svc: ServiceClient;
let doc: any;

beforeAll(async () => {
  svc = await sharedService();
  doc = await (await fetch(`${svc.baseUrl}/openapi.json`)).json();
});
afterAll(async () => svc?.close());

/** A shared answer or named request body (`$ref` into `components`) as the operation sees it. */
const resolveRef = (node: any) =>
  node?.$ref
    ? node.$ref
        .split('/')
        .slice(1)
        .reduce((o: any, k: string) => o[k], doc)
    : node;

const operationKeys = (d: any) =>
  Object.entries(d.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  );

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served by the local runner', async () => {
    const res = await fetch(`${svc.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes).toHaveProperty('adminKey');
    expect((await fetch(`${svc.baseUrl}/openapi.json`, { method: 'POST' })).status).toBe(405);
  });

  it("lists the serving service's own base URL first in servers (a generated client's default)", () => {
    // The group's service listens on a port of its own choosing, never 3000.
    expect(new URL(svc.baseUrl).port).not.toBe('3000');
    expect(doc.servers[0]).toEqual({ url: svc.baseUrl, description: 'This service.' });
    expect(doc.servers.filter((s: { url: string }) => s.url === svc.baseUrl)).toHaveLength(1);
    expect(doc.servers.map((s: { url: string }) => s.url)).toContain('http://127.0.0.1:3000');
  });

  it('documents every route of the public route table and of the management API router', () => {
    const { undocumented } = buildOpenApiDocument({ adminRoutes, publicRoutes: routes });
    expect(undocumented).toEqual([]);
    const served = new Set(operationKeys(doc));
    for (const r of routes) {
      if (r.path.includes('{proxy+}')) continue;
      expect(served, `${r.method} ${r.path}`).toContain(`${r.method === 'ANY' ? 'POST' : r.method} ${r.path}`);
    }
    for (const r of adminRoutes) expect(served, `${r.method} ${r.path}`).toContain(`${r.method} /admin/v1${r.path}`);
    expect(served.size).toBe(adminRoutes.length + routes.filter((r) => !r.path.includes('{proxy+}')).length);
    // Each operation answers a success (GET /console only redirects to /console/, 308; the retired route 410).
    for (const key of served) {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[path][method.toLowerCase()];
      expect(op.summary, key).toBeTruthy();
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('2') || s === '308' || s === '410'),
        key,
      ).toBe(true);
    }
  });

  it('fails the check for a route that exists without documentation', () => {
    const extra: RouteDeclaration = route({ method: 'POST', path: '/projects/{projectId}/something-new' });
    const publicExtra = {
      method: 'GET' as const,
      path: '/api/v1/ai/new-thing',
      fn: 'health',
      timeoutSeconds: 5,
      memoryMb: 128,
    };
    const { undocumented } = buildOpenApiDocument({
      adminRoutes: [...adminRoutes, extra],
      publicRoutes: [...routes, publicExtra],
    });
    expect(undocumented).toEqual(['GET /api/v1/ai/new-thing', 'POST /admin/v1/projects/{projectId}/something-new']);
  });

  it('lists every error code of the contract, each under at least one operation', () => {
    const used = new Set<string>();
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        for (const answer of Object.values<any>(op.responses))
          for (const code of resolveRef(answer)['x-error-codes'] ?? []) used.add(code);
      }
    }
    const expected = new Set([...CONTRACT_CODES, ...codesFromSpec()]);
    for (const code of expected) {
      expect(doc.components.schemas.ErrorCode.enum, code).toContain(code);
      // 405 is answered by every route (it is in the document's description); all others appear under an operation.
      if (code !== 'METHOD_NOT_ALLOWED') expect(used, code).toContain(code);
    }
    for (const code of used) expect(Object.keys(ERROR_CODES)).toContain(code);
    expect(doc.info.description).toContain('METHOD_NOT_ALLOWED');
  });

  it("takes request schemas from the code: the admin routes' own zod schemas and the send payload validators", () => {
    const create = resolveRef(doc.paths['/admin/v1/projects/{projectId}/integrations'].post.requestBody).content[
      'application/json'
    ].schema;
    expect(create.oneOf.map((v: any) => v.properties.product.const)).toEqual(['webhook', 'custom', 'poller']);
    expect(create.oneOf[0].additionalProperties).toBe(false);
    const send = doc.paths['/api/integration/generic'].post.requestBody.content['application/json'].schema;
    expect(send.anyOf.map((r: any) => r.$ref)).toEqual([
      '#/components/schemas/SendWhatsAppPayload',
      '#/components/schemas/SendEmailPayload',
      '#/components/schemas/SendSmsPayload',
    ]);
    expect(doc.components.schemas.SendSmsPayload.properties.to.pattern).toBe('^\\+\\d{8,15}$');
    expect(doc.components.schemas.SendEmailPayload.properties.to.anyOf).toHaveLength(2);
  });
});

/** The answer matches the documented schema exactly: parsing keeps every field (no undocumented field is dropped). */
function conforms(schema: z.ZodMiniType, body: unknown) {
  const parsed = schema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(parsed.data).toEqual(body);
}

describe('the documented answers are the real ones', () => {
  it('projects, channels, integrations, deliveries, bots, credits, send and health', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const p = `/projects/${projectId}`;
    conforms(S.project, (await svc.admin('GET', p)).body);
    conforms(S.botCredits, (await svc.admin('GET', `${p}/bot-credits`)).body);
    const channel = await svc.admin('POST', `${p}/channels`, {
      type: 'sms',
      name: 'SMS',
      address: '+5511999990000',
      credits: 5,
    });
    conforms(S.channel, channel.body);
    conforms(S.channelPage, (await svc.admin('GET', `${p}/channels`)).body);
    const custom = await svc.admin('POST', `${p}/integrations`, {
      product: 'custom',
      channelId: channel.body.channelId,
    });
    conforms(S.createdIntegration, custom.body);
    const webhook = await svc.admin('POST', `${p}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'http://127.0.0.1:9/hook',
    });
    conforms(S.createdIntegration, webhook.body);
    conforms(S.integrationPage, (await svc.admin('GET', `${p}/integrations`)).body);
    conforms(
      S.shownOnceToken,
      (await svc.admin('POST', `${p}/integrations/${custom.body.integrationId}/rotate-token`)).body,
    );
    conforms(
      S.signingSecret,
      (await svc.admin('POST', `${p}/integrations/${webhook.body.integrationId}/rotate-secret`)).body,
    );
    conforms(S.eventAccepted, (await svc.admin('POST', `${p}/integrations/${webhook.body.integrationId}/test`)).body);
    conforms(
      S.deliveryPage,
      (await svc.admin('GET', `${p}/integrations/${webhook.body.integrationId}/deliveries`)).body,
    );
    const bot = await svc.admin('POST', `${p}/bots`, { name: 'Docs bot', instructions: 'Be brief.' });
    conforms(S.bot, bot.body);
    conforms(
      S.list(S.knowledgeFile, 'KnowledgeFileList'),
      (await svc.admin('GET', `${p}/bots/${bot.body.botId}/knowledge`)).body,
    );

    const rotated = (await svc.admin('POST', `${p}/integrations/${custom.body.integrationId}/rotate-token`)).body.token;
    const sent = await svc.send(rotated, { to: '+5511988887777', body: 'hi' });
    conforms(S.sendResult, await sent.json());
    const health = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers: { authorization: `Bearer ${token}` } });
    conforms(S.healthResult, await health.json());
    const search = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ botId: bot.body.botId, query: 'anything' }),
    });
    conforms(S.searchResult, await search.json());
    const error = await svc.admin('GET', `${p}/integrations/int_missing`);
    conforms(S.errorBody, error.body);
  });
});

describe('request schemas in the document are the ones the handlers validate with', () => {
  const jsonBody = (path: string) => resolveRef(doc.paths[path].post.requestBody).content['application/json'].schema;

  it("completion: the documented schema and the handler's parser accept and refuse the same bodies", () => {
    expect(jsonBody('/api/v1/ai/completion')['x-schema-source']).toBeUndefined();
    const props = jsonBody('/api/v1/ai/completion').properties;
    expect(props.prompt.maxLength).toBe(120_000);
    expect(props.instructions.maxLength).toBe(60_000);
    expect([props.timeoutMs.minimum, props.timeoutMs.maximum, props.timeoutMs.default]).toEqual([
      1_000, 90_000, 30_000,
    ]);
    expect(props.responseFormat.enum).toEqual(['text', 'json']);
    const accepted = (body: Record<string, unknown>) => {
      try {
        parseCompletionRequest(body);
        return true;
      } catch {
        return false;
      }
    };
    expect(accepted({ prompt: 'x', botId: 'bot_1', responseFormat: 'json', timeoutMs: 90_000 })).toBe(true);
    expect(accepted({ prompt: 'x'.repeat(120_001), instructions: 'y' })).toBe(false);
    expect(accepted({ prompt: 'x', instructions: 'y', timeoutMs: 999 })).toBe(false);
    expect(accepted({ prompt: 'x', instructions: 'y', responseFormat: 'xml' })).toBe(false);
    expect(accepted({ prompt: 'x', instructions: 'y', extra: 1 })).toBe(false);
  });

  it("search: the documented limits are the endpoint's", async () => {
    expect(jsonBody('/api/v1/ai/search')['x-schema-source']).toBeUndefined();
    const { projectId, token } = await svc.newProject();
    const bot = (await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'b', instructions: 'i' })).body;
    const search = async (body: unknown) =>
      (
        await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status;
    const props = jsonBody('/api/v1/ai/search').properties;
    expect([props.topK.minimum, props.topK.maximum, props.query.maxLength]).toEqual([1, 8, 2000]);
    expect(
      await search({ botId: bot.botId, query: 'q'.repeat(2000), topK: 8, filters: { incluirArquivos: ['%.pdf'] } }),
    ).toBe(200);
    expect(await search({ botId: bot.botId, query: 'q'.repeat(2001) })).toBe(400);
    expect(await search({ botId: bot.botId, query: 'q', topK: 9 })).toBe(400);
    expect(await search({ botId: bot.botId, query: 'q', other: true })).toBe(400);
  });
});

describeNeeding(chromium, 'GET /docs', () => {
  it('renders every operation offline, from the document only', async () => {
    await ensureConsoleBuilt();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const origins = new Set<string>();
      page.on('request', (r) => origins.add(new URL(r.url()).origin));
      await page.goto(`${svc.baseUrl}/docs`);
      await page.getByRole('heading', { level: 1, name: 'Switchboard API' }).waitFor();
      const operations = await page.locator('article.op h3 .method').count();
      expect(operations).toBe(operationKeys(doc).length);
      const text = (await page.locator('main').textContent())!;
      expect(text).toContain('/api/integration/generic');
      expect(text).toContain('ERR_PUBLIC_AI_RATE_LIMIT');
      expect([...origins]).toEqual([svc.baseUrl]);
    } finally {
      await browser.close();
    }
  });
});
