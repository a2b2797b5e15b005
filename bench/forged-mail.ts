/**
 * The forged opt-outs of bench/lib/forged-mail.ts alone (bench/untrusted-input.ts runs them after its PDF bombs):
 * a service of its own (`npm start` in a child process), a webhook receiver, each attack `--rounds` times.
 *
 *   npx tsx bench/forged-mail.ts [--rounds 3]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { type ForgedMailRow, forgedMail, forgedMailReport } from './lib/forged-mail.ts';
import { adminApi, machine, numberArg } from './lib/harness.ts';

const rounds = numberArg('rounds', 3);

const smtpPort = await new Promise<number>((resolve) => {
  const s = createTcpServer().listen(0, '127.0.0.1', () => {
    const port = (s.address() as AddressInfo).port;
    s.close(() => resolve(port));
  });
});
const arrivals: { type: string; at: number; eventId: string; channelId?: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    arrivals.push({ type: event.type, at: performance.now(), eventId: event.id, channelId: event.channel?.id });
    res.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await new Promise((r) => receiver.once('listening', r));

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
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
});

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** While `work` runs: the peak RSS (every 5 ms) and /healthz latencies (one probe every 20 ms). */
async function observed<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; healthz: number[] }> {
  let peakMb = rssMb();
  let running = true;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb());
  }, 5);
  const healthz: number[] = [];
  const prober = (async () => {
    while (running) {
      const t = performance.now();
      await fetch(`${svc.baseUrl}/healthz`).then((r) => r.arrayBuffer());
      healthz.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const value = await work();
    return { value, peakMb: Math.max(peakMb, rssMb()), healthz };
  } finally {
    running = false;
    clearInterval(sampler);
    await prober;
  }
}

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
