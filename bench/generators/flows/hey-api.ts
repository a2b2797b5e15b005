// The README flow with @hey-api/openapi-ts, its default plugins (`openapi-ts -i openapi.json -o out/hey-api`): one
// function per operationId. Configured as its docs say: the base URL of the running service (the document's first
// server is the default `http://127.0.0.1:3000`) and an `auth` callback that picks the token by security scheme.
import { client } from '../out/hey-api/client.gen.ts';
import {
  createApiToken,
  createBot,
  createChannel,
  createCompletion,
  createIntegration,
  createProject,
  extractPdf,
  listDeliveries,
  listKnowledgeFiles,
  searchKnowledge,
  sendMessage,
  sendTestEvent,
  uploadKnowledgeFile,
} from '../out/hey-api/sdk.gen.ts';
import { ADMIN, BASE, expectThat, KNOWLEDGE, must, PDF, receiver, sleep } from './common.ts';

const tokens: Record<string, string> = { adminKey: ADMIN };
client.setConfig({ baseUrl: BASE, auth: (scheme) => tokens[scheme.key ?? ''] });

const project = await createProject({ body: { companyId: 1042, name: 'Acme', monthlyBotCredits: 100 } });
const projectId = must('createProject', project.data?.projectId, project.error);
const token = await createApiToken({ path: { projectId } });
tokens.apiToken = must('createApiToken', token.data?.token, token.error);
const channel = await createChannel({
  path: { projectId },
  body: { type: 'sms', name: 'Alerts', address: '+5511977776666', credits: 100 },
});
const channelId = must('createChannel', channel.data?.channelId, channel.error);
const custom = await createIntegration({ path: { projectId }, body: { product: 'custom', channelId } });
tokens.customToken = must('createIntegration (custom)', custom.data?.token, custom.error);
const hook = await receiver();
const webhook = await createIntegration({
  path: { projectId },
  body: { product: 'webhook', scope: 'general', url: hook.url, bearerToken: 'my-receiver-token' },
});
const integrationId = must('createIntegration (webhook)', webhook.data?.integrationId, webhook.error);

const sent = await sendMessage({ body: { to: '+5511988887777', body: 'Your order has shipped' } });
must('sendMessage', sent.data?.messageId, sent.error);
await sendTestEvent({ path: { projectId, integrationId } });
let delivered = 0;
for (let i = 0; i < 100 && delivered < 2; i++) {
  await sleep(100);
  delivered = 0;
  let cursor: string | undefined;
  do {
    const page = await listDeliveries({
      path: { projectId, integrationId },
      query: { limit: 1, ...(cursor ? { cursor } : {}) },
    });
    const data = must('listDeliveries (a page)', page.data, page.error);
    delivered += data.items.filter((d) => d.status === 'succeeded').length;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}
expectThat('listDeliveries: both delivered, over pages of 1', delivered === 2 && hook.count() === 2, delivered);
hook.close();

const bot = await createBot({
  path: { projectId },
  body: { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
});
const botId = must('createBot', bot.data?.botId, bot.error);
const put = await uploadKnowledgeFile({
  path: { projectId, botId, fileName: 'refunds.md' },
  body: new Blob([KNOWLEDGE], { type: 'text/markdown' }),
  headers: { 'Content-Type': 'text/markdown' },
});
must('uploadKnowledgeFile', put.data?.status, put.error);
for (let i = 0; i < 100; i++) {
  const list = await listKnowledgeFiles({ path: { projectId, botId } });
  if (list.data?.items.every((f) => f.status === 'ready')) break;
  await sleep(100);
}
const search = await searchKnowledge({ body: { botId, query: 'how long do refunds take' } });
const trechos = must('searchKnowledge', search.data?.trechos, search.error);
expectThat(
  'searchKnowledge: the file as uploaded',
  trechos[0]?.texto.includes('Refunds take five') === true,
  trechos[0],
);
const completion = await createCompletion({ body: { botId, prompt: 'How long do refunds take?' } });
must('createCompletion', completion.data, completion.error);
const extracted = await extractPdf({ body: { file: PDF, mode: 'text' } });
const text = must('extractPdf', extracted.data, extracted.error);
expectThat('extractPdf: the invoice text', 'result' in text && text.result.includes('Invoice 42'), text);
