/**
 * The forged opt-outs of bench/lib/forged-mail.ts alone (bench/untrusted-input.ts runs them after its PDF bombs):
 * a service of its own (`npm start` in a child process), a webhook receiver, each attack `--rounds` times.
 *
 *   npx tsx bench/forged-mail.ts [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { type ForgedMailRow, forgedMail, forgedMailReport } from './lib/forged-mail.ts';
import { adminApi, machine, numberArg } from './lib/harness.ts';
import { freePort, startArrivalReceiver, watchService } from './lib/service-watch.ts';

const rounds = numberArg('rounds', 3);

const smtpPort = await freePort();
const receiver = await startArrivalReceiver();
const { arrivals } = receiver;

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-forged-'));
const svc = await spawnService(
  { DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT', SMTP_INBOUND_PORT: String(smtpPort) },
  60_000,
);
const pid = svc.child.pid!;
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1043, name: 'forged mail' });
await admin('POST', `/projects/${project.projectId}/integrations`, {
  product: 'webhook',
  scope: 'general',
  url: receiver.url,
});

const { rssMb, observed } = watchService(svc.baseUrl, pid);

const results: ForgedMailRow[][] = [];
// The first round warms the mail path (the parsing sandbox starts); it is not counted.
for (let r = 0; r < rounds + 1; r++) {
  const rows = await forgedMail({
    baseUrl: svc.baseUrl,
    smtpPort,
    projectId: project.projectId,
    admin,
    arrivals,
    observed,
    rssMb,
  });
  if (r > 0) results.push(rows);
}

await stopProcess(svc.child, 'SIGTERM');
receiver.close();
rmSync(dataDir, { recursive: true, force: true });

console.log(
  `\n${machine()}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${new Date().toISOString()}`,
);
console.log(`npx tsx bench/forged-mail.ts --rounds ${rounds} (medians of ${rounds}, after a warm-up round)\n`);
console.log(forgedMailReport(results));
