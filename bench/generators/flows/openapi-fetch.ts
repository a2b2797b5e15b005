// The README flow with openapi-typescript + openapi-fetch, default options (`openapi-typescript openapi.json -o
// schema.d.ts`, `createClient<paths>({ baseUrl })`). Per call only what openapi-fetch documents: a client per
// credential (its `headers`), and a `bodySerializer` for the two bodies that are not JSON.
import createClient from 'openapi-fetch';
import type { paths } from '../out/openapi-typescript/schema.d.ts';
import { ADMIN, BASE, expectThat, KNOWLEDGE, must, PDF, receiver, sleep } from './common.ts';

const client = (token: string) => createClient<paths>({ baseUrl: BASE, headers: { Authorization: `Bearer ${token}` } });
const admin = client(ADMIN);

const project = await admin.POST('/admin/v1/projects', {
  body: { companyId: 1042, name: 'Acme', monthlyBotCredits: 100 },
});
const projectId = must('createProject', project.data?.projectId, project.error);
const token = await admin.POST('/admin/v1/projects/{projectId}/api-token', { params: { path: { projectId } } });
const bots = client(must('createApiToken', token.data?.token, token.error));
const channel = await admin.POST('/admin/v1/projects/{projectId}/channels', {
  params: { path: { projectId } },
  body: { type: 'sms', name: 'Alerts', address: '+5511977776666', credits: 100 },
});
const channelId = must('createChannel', channel.data?.channelId, channel.error);
const custom = await admin.POST('/admin/v1/projects/{projectId}/integrations', {
  params: { path: { projectId } },
  body: { product: 'custom', channelId },
});
const sender = client(must('createIntegration (custom)', custom.data?.token, custom.error));
const hook = await receiver();
const webhook = await admin.POST('/admin/v1/projects/{projectId}/integrations', {
  params: { path: { projectId } },
  body: { product: 'webhook', scope: 'general', url: hook.url, bearerToken: 'my-receiver-token' },
});
const integrationId = must('createIntegration (webhook)', webhook.data?.integrationId, webhook.error);

const sent = await sender.POST('/api/integration/generic', {
  body: { to: '+5511988887777', body: 'Your order has shipped' },
});
must('sendMessage', sent.data?.messageId, sent.error);
await admin.POST('/admin/v1/projects/{projectId}/integrations/{integrationId}/test', {
  params: { path: { projectId, integrationId } },
});
let delivered = 0;
for (let i = 0; i < 100 && delivered < 2; i++) {
  await sleep(100);
  delivered = 0;
  let cursor: string | undefined;
  do {
    const page = await admin.GET('/admin/v1/projects/{projectId}/integrations/{integrationId}/deliveries', {
      params: { path: { projectId, integrationId }, query: { limit: 1, ...(cursor ? { cursor } : {}) } },
    });
    const data = must('listDeliveries (a page)', page.data, page.error);
    delivered += data.items.filter((d) => d.status === 'succeeded').length;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}
expectThat('listDeliveries: both delivered, over pages of 1', delivered === 2 && hook.count() === 2, delivered);
hook.close();

const bot = await admin.POST('/admin/v1/projects/{projectId}/bots', {
  params: { path: { projectId } },
  body: { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
});
const botId = must('createBot', bot.data?.botId, bot.error);
const put = await admin.PUT('/admin/v1/projects/{projectId}/bots/{botId}/knowledge/{fileName}', {
  params: { path: { projectId, botId, fileName: 'refunds.md' } },
  body: new Blob([KNOWLEDGE], { type: 'text/markdown' }),
  headers: { 'Content-Type': 'text/markdown' },
  bodySerializer: (body) => body,
});
must('uploadKnowledgeFile', put.data?.status, put.error);
for (let i = 0; i < 100; i++) {
  const list = await admin.GET('/admin/v1/projects/{projectId}/bots/{botId}/knowledge', {
    params: { path: { projectId, botId } },
  });
  if (list.data?.items.every((f) => f.status === 'ready')) break;
  await sleep(100);
}
const search = await bots.POST('/api/v1/ai/search', { body: { botId, query: 'how long do refunds take' } });
const trechos = must('searchKnowledge', search.data?.trechos, search.error);
expectThat(
  'searchKnowledge: the file as uploaded',
  trechos[0]?.texto.includes('Refunds take five') === true,
  trechos[0],
);
const completion = await bots.POST('/api/v1/ai/completion', { body: { botId, prompt: 'How long do refunds take?' } });
must('createCompletion', completion.data, completion.error);
const extracted = await bots.POST('/api/v1/ai/extract', {
  body: { file: PDF, mode: 'text' },
  bodySerializer: (body) => {
    const form = new FormData();
    form.append('file', PDF, 'invoice.pdf');
    if (body.mode) form.append('mode', body.mode);
    return form;
  },
});
const text = must('extractPdf', extracted.data, extracted.error);
expectThat('extractPdf: the invoice text', 'result' in text && text.result.includes('Invoice 42'), text);
