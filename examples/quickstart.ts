// examples/quickstart.ts: every product once, with the official client. Run with the service up: npx tsx examples/quickstart.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSwitchboard } from '@switchboard/sdk';

const baseUrl = process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:3000';
// The admin key: ADMIN_KEY if the service was started with one, else the one it wrote under its DATA_DIR.
const adminKey =
  process.env.ADMIN_KEY ?? readFileSync(join(process.env.DATA_DIR ?? '.data', 'admin-key'), 'utf8').trim();

// 1. A project, its API token (Bots API), an SMS channel on the sandbox provider and a custom integration (sends).
const admin = createSwitchboard({ baseUrl, adminKey });
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

// 2. Send. Each call picks the credential its operation takes (custom token here).
const sb = createSwitchboard({ baseUrl, adminKey, apiToken, customToken: custom.token });
const sent = await sb.sendMessage({ body: { to: '+5511988887777', body: 'Your order has shipped' } });
console.log('sent', sent.messageId, sent.status);
// Every list pages the same way (?limit&cursor → { items, nextCursor? }); paginate walks it to the end.
for await (const m of sb.paginate('listOutboxMessages', {
  params: { path: { ...path, channelId: channel.channelId } },
}))
  console.log('outbox', m.messageId, m.to);

// 3. A bot with one knowledge file; ingestion runs in the background, so wait until the file is ready.
const bot = await sb.createBot({
  params: { path },
  body: { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
});
const botPath = { ...path, botId: bot.botId };
await sb.uploadKnowledgeFile({
  params: { path: { ...botPath, fileName: 'refunds.md' } },
  body: new Blob(['# Refunds\n\nRefunds take five business days after the return arrives.\n'], {
    type: 'text/markdown',
  }),
});
for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
  const { items } = await sb.listKnowledgeFiles({ params: { path: botPath } });
  const file = items.find((f) => f.fileName === 'refunds.md');
  if (file?.status === 'ready') break;
  if (file?.status === 'failed') throw new Error(`refunds.md failed: ${file.error}`);
  if (Date.now() > deadline) throw new Error('refunds.md was not ready within 60 s');
}

// 4. The Bots API: search (free), a completion and an extract (1 bot credit each).
const { trechos } = await sb.searchKnowledge({ body: { botId: bot.botId, query: 'how long do refunds take' } });
console.log('search', trechos[0]?.procedencia, trechos[0]?.texto);
const answer = await sb.createCompletion({ body: { botId: bot.botId, prompt: 'How long do refunds take?' } });
// A text answer is `result`; with responseFormat: 'json' it is `dados` (parsed JSON) instead.
console.log('completion', 'result' in answer ? answer.result : answer.dados, answer.fontes);
const pdf = new Blob([readFileSync(join(import.meta.dirname, 'invoice.pdf'))], { type: 'application/pdf' });
const extracted = await sb.extractPdf({ body: { file: pdf, mode: 'text' } });
console.log('extract', 'result' in extracted ? extracted.result : extracted.dados);
const health = await sb.getAiHealth();
console.log('credits left', health.creditos.disponivel, 'in', health.creditos.mes);
