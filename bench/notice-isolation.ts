/**
 * A refused notice email against the rest of the project's events: how long a `webhook.test` sent to a project's
 * general webhook takes to arrive (POST → the receiver has it) while a `webhook.failing` notice's email to the
 * project's `contactEmail` is refused by the mail server (550 to RCPT TO, as SES's sandbox answers an unverified
 * recipient), beside the same with the mail accepted, in the same service.
 *
 *   npx tsx bench/notice-isolation.ts [--anchor /path/to/other/checkout] [--tests 5] [--cap 300]
 *
 * Each tree runs `local/main.ts` in a process of its own (WEBHOOK_FAILING_AFTER=3, retries 0.2 s apart), with an SMTP
 * double as NOTICE_SMTP_URL. Per mode: a project with a contact, a general webhook and a channel webhook answering
 * 500; one event makes the channel webhook fail 4 times, which writes the notice; once the notice is written (or
 * `--cap` seconds), `--tests` test events are sent one a second and timed. A test shares the notices' order key (no
 * channel), which is what a notice stuck on the events queue holds back. `--anchor`: the same run against another
 * checkout (the commit before), after this tree's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSmtpDouble } from '#test/e2e/send-doubles.ts';
import { receiverPool } from '#test/e2e/webhooks-support.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { keepAliveAdminApi, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    anchor: { type: 'string' },
    tests: { type: 'string', default: '5' },
    cap: { type: 'string', default: '300' },
  },
});
const TESTS = Number(values.tests);
const CAP_MS = Number(values.cap) * 1000;

const smtp = await startSmtpDouble();
const receivers = receiverPool();

async function waitFor(check: () => boolean, capMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > capMs) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

async function run(tree: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'notice-isolation-'));
  const svc = await spawnService(
    {
      DATA_DIR: dataDir,
      WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
      WEBHOOK_FAILING_AFTER: '3',
      NOTICE_SMTP_URL: `smtp://notices:s3cret@127.0.0.1:${smtp.port}?allowPlaintext=true`,
      NOTICE_EMAIL_FROM: 'Switchboard <notices@example.com>',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    120_000,
    tree ? { cwd: tree } : {},
  );
  const api = keepAliveAdminApi(svc);
  const results: Record<string, { noticeMs?: number; latenciesMs: (number | undefined)[] }> = {};
  try {
    for (const mode of ['accepted', 'refused'] as const) {
      smtp.setRefuse(mode === 'refused');
      const contact = `ops+${mode}-${Date.now()}@acme.example`;
      const project = await api.call('POST', '/projects', {
        companyId: 7,
        name: `isolation ${mode}`,
        contactEmail: contact,
      });
      const projectId = project.json.projectId as string;
      const channel = await api.call('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'sms',
        address: '+5511999990000',
      });
      const general = await receivers.start();
      const failing = await receivers.start(() => 500);
      const g = await api.call('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: general.url,
      });
      await api.call('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'channel',
        channelId: channel.json.channelId,
        url: failing.url,
      });
      await api.call('POST', `/projects/${projectId}/events`, {
        channelId: channel.json.channelId,
        type: 'message.sent',
        data: { n: 1 },
      });
      // The notice is written once the 3rd attempt failed: from then on its fan-out is on the events queue.
      await waitFor(() => failing.received.length >= 3, 60_000);
      const noticeStart = Date.now();
      const latenciesMs: (number | undefined)[] = [];
      const sends: Promise<void>[] = [];
      for (let i = 0; i < TESTS; i++) {
        sends.push(
          (async () => {
            const sentAt = Date.now();
            const res = await api.call('POST', `/projects/${projectId}/integrations/${g.json.integrationId}/test`);
            if (res.status !== 202) throw new Error(`test event: ${res.status}`);
            const eventId = res.json.eventId as string;
            const arrived = await waitFor(() => general.received.some((d) => d.json.id === eventId), CAP_MS);
            latenciesMs[i] = arrived === undefined ? undefined : Date.now() - sentAt;
          })(),
        );
        await new Promise((r) => setTimeout(r, 1000));
      }
      await Promise.all(sends);
      const notice = general.received.find((d) => d.json.type === 'webhook.failing');
      results[mode] = {
        ...(notice ? { noticeMs: notice.at - noticeStart } : {}),
        latenciesMs,
      };
    }
  } finally {
    smtp.setRefuse(false);
    await stopProcess(svc.child, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

const fmt = (ms: number | undefined) => (ms === undefined ? `> ${CAP_MS / 1000} s` : `${(ms / 1000).toFixed(2)} s`);
console.log(
  `# bench/notice-isolation.ts — ${new Date().toISOString()} — load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${TESTS} test events per mode`,
);
for (const [label, tree] of [
  ['this tree', undefined],
  ...(values.anchor ? [['anchor', values.anchor] as const] : []),
] as const) {
  const results = await run(tree);
  for (const [mode, r] of Object.entries(results)) {
    const known = r.latenciesMs.filter((l): l is number => l !== undefined);
    console.log(
      `${label}, notice email ${mode}: test event latency median ${known.length === r.latenciesMs.length ? fmt(median(known)) : fmt(undefined)} ` +
        `(each: ${r.latenciesMs.map(fmt).join(', ')}); webhook.failing at the general webhook ${fmt(r.noticeMs)} after it was written`,
    );
  }
}
await receivers.closeAll();
await smtp.close();
