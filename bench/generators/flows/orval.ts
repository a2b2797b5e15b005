// The README flow with orval's fetch client (`client: 'fetch'`, the base URL of the running service as
// `output.baseUrl`: orval does not read `servers` by default): one function per operationId, the token of each
// call in its `RequestInit` (orval ignores security schemes).
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
} from '../out/orval/switchboard.ts';
import { ADMIN, expectThat, KNOWLEDGE, must, PDF, receiver, sleep } from './common.ts';

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
const admin = bearer(ADMIN);

const project = await createProject({ companyId: 1042, name: 'Acme', monthlyBotCredits: 100 }, admin);
const projectId = must('createProject', project.status === 201 ? project.data.projectId : undefined, project.data);
const token = await createApiToken(projectId, admin);
const bots = bearer(must('createApiToken', token.status === 201 ? token.data.token : undefined, token.data));
const channel = await createChannel(
  projectId,
  { type: 'sms', name: 'Alerts', address: '+5511977776666', credits: 100 },
  admin,
);
const channelId = must('createChannel', channel.status === 201 ? channel.data.channelId : undefined, channel.data);
const custom = await createIntegration(projectId, { product: 'custom', channelId }, admin);
const sender = bearer(
  must('createIntegration (custom)', custom.status === 201 ? custom.data.token : undefined, custom.data),
);
const hook = await receiver();
const webhook = await createIntegration(
  projectId,
  { product: 'webhook', scope: 'general', url: hook.url, bearerToken: 'my-receiver-token' },
  admin,
);
const integrationId = must(
  'createIntegration (webhook)',
  webhook.status === 201 ? webhook.data.integrationId : undefined,
  webhook.data,
);

const sent = await sendMessage({ to: '+5511988887777', body: 'Your order has shipped' }, sender);
must('sendMessage', sent.status === 200 ? sent.data.messageId : undefined, sent.data);
await sendTestEvent(projectId, integrationId, admin);
let delivered = 0;
for (let i = 0; i < 100 && delivered < 2; i++) {
  await sleep(100);
  delivered = 0;
  let cursor: string | undefined;
  do {
    const page = await listDeliveries(projectId, integrationId, { limit: 1, ...(cursor ? { cursor } : {}) }, admin);
    const data = must('listDeliveries (a page)', page.status === 200 ? page.data : undefined, page.data);
    delivered += data.items.filter((d) => d.status === 'succeeded').length;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}
expectThat('listDeliveries: both delivered, over pages of 1', delivered === 2 && hook.count() === 2, delivered);
hook.close();

const bot = await createBot(
  projectId,
  { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
  admin,
);
const botId = must('createBot', bot.status === 201 ? bot.data.botId : undefined, bot.data);
const put = await uploadKnowledgeFile(
  projectId,
  botId,
  'refunds.md',
  new Blob([KNOWLEDGE], { type: 'text/markdown' }),
  {
    headers: { ...admin.headers, 'Content-Type': 'text/markdown' },
  },
);
must('uploadKnowledgeFile', put.status === 202 ? put.data.status : undefined, put.data);
for (let i = 0; i < 100; i++) {
  const list = await listKnowledgeFiles(projectId, botId, admin);
  if (list.status === 200 && list.data.items.every((f) => f.status === 'ready')) break;
  await sleep(100);
}
const search = await searchKnowledge({ botId, query: 'how long do refunds take' }, bots);
const trechos = must('searchKnowledge', search.status === 200 ? search.data.trechos : undefined, search.data);
expectThat(
  'searchKnowledge: the file as uploaded',
  trechos[0]?.texto.includes('Refunds take five') === true,
  trechos[0],
);
const completion = await createCompletion({ botId, prompt: 'How long do refunds take?' }, bots);
must('createCompletion', completion.status === 200 ? completion.data : undefined, completion.data);
const extracted = await extractPdf({ file: PDF, mode: 'text' }, bots);
const text = must('extractPdf', extracted.status === 200 ? extracted.data : undefined, extracted.data);
expectThat('extractPdf: the invoice text', 'result' in text && text.result.includes('Invoice 42'), text);
