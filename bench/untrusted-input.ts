/**
 * Untrusted input (bench/history/2026-11-untrusted-input.md) against a running service (`npm start` in a child process, its RSS read from /proc):
 * 1. the PDFs the old text scan let through, full size (the 2 KB Brotli PDF holding 2 GiB, and 1 GiB of Flate under
 *    `/Fl`, `/Flat#65Decode`, a `/Filter` by reference, a dictionary past 4 KB), each sent to `POST /api/v1/ai/extract`:
 *    the answer and its time, the service's RSS growth (peak while it runs, sampled every 5 ms, minus before), and
 *    `/healthz` latency (one probe every 20 ms from a second connection) while it runs; the balance after;
 * 2. the same files as knowledge uploads: the time until `failed`, and the reason;
 * 3. a mail whose only part is 320,000 `<`, sent over SMTP to an email channel's address, with a `webhook.test` queued
 *    right after it: the time to `message.received` and to the `webhook.test` at a real receiver;
 * 4. forged opt-outs (bench/lib/forged-mail.ts): a spoofed unsubscribe, a planted Message-ID then a bounce report, a
 *    report naming addresses a sent mail never went to, 200 RCPT TO in one session: what each changed;
 * 5. the OpenAI-format requests built to swell the service or buy model work for free, and how soon a model call is
 *    aborted after its caller leaves (`bench/lib/untrusted-ai.ts`);
 * and an anchor from the same run: an ordinary PDF's extract time and `/healthz` p99 with nothing else running.
 *
 *   npx tsx bench/untrusted-input.ts [--rounds 3] [--only pdf,knowledge,mail,ai] [--abort-trials 20] [--ai-skip <name;name>]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { GiB, ISSUE_BOMBS, pdfBomb } from '#test/support/pdf-bombs.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { startModelDouble } from '#test/support/model-double.ts';
import { type ForgedMailRow, forgedMail, forgedMailReport } from './lib/forged-mail.ts';
import { adminApi, argValue, machine, median, numberArg } from './lib/harness.ts';
import { freePort, startArrivalReceiver, watchService } from './lib/service-watch.ts';
import { abortLatency, aiReproductions, type AbortRow, type AiRow } from './lib/untrusted-ai.ts';

const rounds = numberArg('rounds', 3);
const sections = new Set((argValue('only') ?? 'pdf,knowledge,mail,ai').split(','));
const abortTrials = numberArg('abort-trials', 20);
const aiSkip = new Set((argValue('ai-skip') ?? '').split(';').filter(Boolean));
const double = await startModelDouble();

// A webhook receiver: when each event type arrived.
const receiver = await startArrivalReceiver();
const { arrivals } = receiver;

const smtpPort = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-untrusted-'));
const svc = await spawnService(
  {
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    SMTP_INBOUND_PORT: String(smtpPort),
    BOT_RATE_LIMIT_PER_MINUTE: '100000',
    OPENAI_BASE_URL: double.baseUrl,
    OPENAI_MODEL: 'bench-model',
  },
  60_000,
);
const pid = svc.child.pid!;
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1042, name: 'bench', monthlyBotCredits: 1000 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const balance = async () => (await admin('GET', `/projects/${project.projectId}/bot-credits`)).disponivel as number;

const { rssMb, observed } = watchService(svc.baseUrl, pid);

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

const BOUNDARY = 'bench-boundary';
async function extract(pdf: Uint8Array): Promise<{ status: number; code?: string; message?: string }> {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    Buffer.from(pdf),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  const json = (await res.json()) as { error?: string; message?: string };
  return { status: res.status, code: json.error, message: json.message };
}

// Warm-up: the first extract loads pdfjs and installs its decode bound in the parsing sandbox; a first mail and a
// first knowledge file do the same for theirs.
const ordinary = await textPdf(['An ordinary page of text, the anchor of this run.']);
for (let i = 0; i < 3; i++) await extract(ordinary);
const { botId } = await admin('POST', `/projects/${project.projectId}/bots`, { name: 'bench', instructions: 'x' });
const putKnowledge = (fileName: string, body: Uint8Array) =>
  fetch(`${svc.baseUrl}/admin/v1/projects/${project.projectId}/bots/${botId}/knowledge/${fileName}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'application/pdf' },
    body: Buffer.from(body),
  });
await putKnowledge('warm.pdf', ordinary);

// ---------------------------------------------------------------- anchor
const anchorRuns: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  await extract(ordinary);
  anchorRuns.push(performance.now() - t);
}
const idle = await observed(() => new Promise((r) => setTimeout(r, 3000)));

// ---------------------------------------------------------------- 1. extract
interface ExtractRow {
  name: string;
  bytes: number;
  answers: string;
  ms: number[];
  growthMb: number[];
  healthzP99: number[];
  healthzMax: number[];
}
const extractRows: ExtractRow[] = [];
const creditsBefore = await balance();
for (const name of sections.has('pdf') ? ISSUE_BOMBS : []) {
  const file = await pdfBomb(name).make(name === 'brotli' ? undefined : { decoded: GiB });
  const row: ExtractRow = {
    name,
    bytes: file.length,
    answers: '',
    ms: [],
    growthMb: [],
    healthzP99: [],
    healthzMax: [],
  };
  for (let r = 0; r < rounds; r++) {
    const before = rssMb();
    const t = performance.now();
    const run = await observed(() => extract(file));
    row.ms.push(performance.now() - t);
    row.growthMb.push(run.peakMb - before);
    row.healthzP99.push(p99(run.healthz));
    row.healthzMax.push(Math.max(...run.healthz));
    row.answers = `${run.value.status} ${run.value.code}`;
  }
  extractRows.push(row);
  console.error(`${name}: ${row.answers}, ${Math.round(median(row.ms))} ms, +${Math.round(median(row.growthMb))} MB`);
}
const creditsAfter = await balance();

// ---------------------------------------------------------------- 2. knowledge
const knowledgeRows: { name: string; ms: number; status: string; error: string }[] = [];
for (const name of sections.has('knowledge') ? ISSUE_BOMBS : []) {
  const file = await pdfBomb(name).make(name === 'brotli' ? undefined : { decoded: GiB });
  const t = performance.now();
  await putKnowledge(`${name}.pdf`, file);
  for (;;) {
    const list = await admin('GET', `/projects/${project.projectId}/bots/${botId}/knowledge`);
    const item = (list.items as { fileName: string; status: string; error?: string }[]).find(
      (i) => i.fileName === `${name}.pdf`,
    );
    if (item && item.status !== 'processing') {
      knowledgeRows.push({ name, ms: performance.now() - t, status: item.status, error: item.error ?? '' });
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------- 3. mail
const address = 'bench-mail@inbound.example.com';
const channel = await admin('POST', `/projects/${project.projectId}/channels`, {
  name: 'mail',
  type: 'email',
  address,
});
const webhook = await admin('POST', `/projects/${project.projectId}/integrations`, {
  product: 'webhook',
  scope: 'general',
  url: receiver.url,
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
const mailRows: { received: number; test: number }[] = [];
for (let r = 0; sections.has('mail') && r < rounds + 1; r++) {
  const raw = Buffer.from(
    `From: a@example.org\r\nTo: ${address}\r\nSubject: lt\r\nMessage-ID: <lt-${randomBytes(6).toString('hex')}@example.org>\r\n` +
      `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/html\r\n\r\n` +
      `${'<'.repeat(320_000)}\r\n--B--\r\n`,
  );
  const seen = arrivals.length;
  const sent = performance.now();
  await transport.sendMail({ envelope: { from: 'a@example.org', to: [address] }, raw });
  const test = await admin('POST', `/projects/${project.projectId}/integrations/${webhook.integrationId}/test`);
  const queued = performance.now();
  const arrival = async (type: string, id?: string) => {
    for (;;) {
      const found = arrivals.slice(seen).find((a) => a.type === type && (!id || a.eventId === id));
      if (found) return found.at;
      await new Promise((res) => setTimeout(res, 2));
    }
  };
  const [received, tested] = await Promise.all([arrival('message.received'), arrival('webhook.test', test.eventId)]);
  // The first round warms the mail path (the sandbox worker starts); it is not counted.
  if (r > 0) mailRows.push({ received: received - sent, test: tested - queued });
}
void channel;

// ---------------------------------------------------------------- 4. forged opt-outs (bench/lib/forged-mail.ts)
const forgedRounds: ForgedMailRow[][] = [];
for (let r = 0; sections.has('mail') && r < rounds; r++)
  forgedRounds.push(
    await forgedMail({
      baseUrl: svc.baseUrl,
      smtpPort,
      projectId: project.projectId,
      admin,
      arrivals,
      observed,
      rssMb,
    }),
  );

// ---------------------------------------------------------------- 5. OpenAI-format requests
let aiRows: AiRow[] = [];
let abortRows: AbortRow[] = [];
if (sections.has('ai')) {
  const openaiBot = (
    await admin('POST', `/projects/${project.projectId}/bots`, { name: 'o', instructions: 'x', model: 'openai' })
  ).botId as string;
  const ai = {
    baseUrl: svc.baseUrl,
    rounds,
    token,
    offlineBot: botId,
    openaiBot,
    double,
    balance,
    rssMb,
    observed,
    p99,
  };
  aiRows = await aiReproductions(ai, aiSkip);
  abortRows = await abortLatency(ai, abortTrials);
}

await stopProcess(svc.child, 'SIGTERM');
await double.close();
receiver.close();
rmSync(dataDir, { recursive: true, force: true });

// ---------------------------------------------------------------- report
const f = (n: number) => Math.round(n).toLocaleString('en');
console.log(
  `\n${machine()}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${new Date().toISOString()}`,
);
console.log(`npx tsx bench/untrusted-input.ts --rounds ${rounds} (medians of ${rounds})\n`);
console.log(
  `Anchor (same run): an ordinary 1-page PDF extracted in ${f(median(anchorRuns))} ms; /healthz p99 ${p99(idle.healthz).toFixed(1)} ms with nothing else running.\n`,
);
if (sections.has('pdf') || sections.has('knowledge') || sections.has('mail')) {
  console.log('| file | bytes | answer | time ms | service RSS growth MB | /healthz p99 ms (max) |');
  console.log('|---|---|---|---|---|---|');
  for (const r of extractRows)
    console.log(
      `| ${r.name} | ${f(r.bytes)} | ${r.answers} | ${f(median(r.ms))} | ${f(median(r.growthMb))} | ` +
        `${median(r.healthzP99).toFixed(1)} (${median(r.healthzMax).toFixed(1)}) |`,
    );
  console.log(`\nBot credits before the bombs: ${creditsBefore}, after: ${creditsAfter}.\n`);
  console.log('| knowledge file | until settled ms | status | reason |');
  console.log('|---|---|---|---|');
  for (const r of knowledgeRows) console.log(`| ${r.name}.pdf | ${f(r.ms)} | ${r.status} | ${r.error} |`);
  console.log(
    `\n320,000 "<" mail: message.received after ${f(median(mailRows.map((m) => m.received)))} ms ` +
      `(${mailRows.map((m) => f(m.received)).join(', ')}); the webhook.test queued beside it delivered after ` +
      `${f(median(mailRows.map((m) => m.test)))} ms (${mailRows.map((m) => f(m.test)).join(', ')}).`,
  );
}
if (sections.has('mail')) console.log(`\nForged opt-outs (medians of ${rounds}):\n\n${forgedMailReport(forgedRounds)}`);
if (aiRows.length) {
  console.log(
    '\n| OpenAI-format request | answer | time ms | service RSS growth MB | /healthz p99 ms | credits charged |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of aiRows)
    console.log(
      `| ${r.name} | ${r.answer} | ${f(median(r.ms))} | ${f(median(r.growthMb))} | ${median(r.healthzP99).toFixed(1)} | ` +
        `${r.credits.join(', ')} |`,
    );
  console.log(
    "\n| caller leaves, the model's first token 10 s away | model call aborted after, p50 ms | p99 ms | charged |",
  );
  console.log('|---|---|---|---|');
  for (const r of abortRows)
    console.log(`| ${r.route} | ${f(median(r.latencies))} | ${f(p99(r.latencies))} | ${r.charged} of ${r.trials} |`);
}
