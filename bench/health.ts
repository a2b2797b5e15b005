/**
 * Bots API health path (bench/history/2026-11-health-and-start-up.md):
 *  - `npm start` to ready (fresh DATA_DIR and existing one), median of 5;
 *  - GET /api/v1/ai/health through the local gateway vs a bare node:http server doing the same DynamoDB operations
 *    (same adapters, same dynalite, same run) vs the handler called in-process without the gateway;
 *  - DynamoDB operations per request.
 * Run: npx tsx bench/health.ts [--seconds 5] [--rounds 3] [--startup-only] [--functions sources|bundles]
 * (`--startup-only`: the start-up measure alone, for both DATA_DIR cases, with the CPU time the service process used
 * until ready; `--functions bundles`: start-up with LOCAL_FUNCTIONS=bundles).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { DynamoRateLimiter, gcraParams } from '#shared/ratelimit/index.ts';
import { startService } from '#local/service.ts';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { adminApi, inProcess, load, machine, median } from './lib/harness.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    'startup-only': { type: 'boolean', default: false },
    functions: { type: 'string', default: 'sources' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);

async function startupTimes(): Promise<{ fresh: number; existing: number; cpu: number }> {
  const fresh: number[] = [];
  const existing: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-start-'));
    for (const bucket of [fresh, existing]) {
      const t0 = performance.now();
      const svc = await spawnService({ DATA_DIR: dir, LOCAL_FUNCTIONS: values.functions });
      while ((await fetch(`${svc.baseUrl}/healthz`).catch(() => undefined))?.status !== 200)
        await new Promise((r) => setTimeout(r, 5));
      bucket.push(performance.now() - t0);
      cpu.push(cpuMs(svc.child.pid!));
      await stopProcess(svc.child, 'SIGTERM');
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return { fresh: median(fresh), existing: median(existing), cpu: median(cpu) };
}

/** CPU time (user + system, all threads) a process has used so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const start = await startupTimes();
if (values['startup-only']) {
  console.log(`npm start to ready — ${machine()} — ${new Date().toISOString()}`);
  console.log(`npx tsx bench/health.ts --startup-only --functions ${values.functions}`);
  console.log(
    `median of 5: fresh DATA_DIR ${Math.round(start.fresh)} ms, existing DATA_DIR ${Math.round(start.existing)} ms, ` +
      `service CPU until ready ${Math.round(start.cpu)} ms`,
  );
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-health-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: { BOT_RATE_LIMIT_PER_MINUTE: '100000', POWERTOOLS_LOG_LEVEL: 'SILENT' },
});
const admin = adminApi(svc);
const project = await admin('POST', '/projects', { companyId: 1042, name: 'bench', monthlyBotCredits: 100 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const headers = { authorization: `Bearer ${token}` };

// Count the DynamoDB calls as dynalite receives them (the wire: the functions run on the runner's HTTP thread).
const dynamo = recordDynamoCalls(svc);

// The anchor: a bare node:http server doing the same DynamoDB operations with the same adapters on the same dynalite.
const anchorClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: 'us-east-1',
    endpoint: svc.emulators.dynamoEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
);
const table = { client: anchorClient, tableName: svc.emulators.tableName };
const tokens = new DynamoTokenStore(table);
const limiter = new DynamoRateLimiter(table, gcraParams(100000));
const ledger = new DynamoCreditLedger(table);
const anchor = createServer(async (req, res) => {
  const presented = (req.headers.authorization ?? '').slice(7);
  const tokenHash = hashToken(presented);
  const grant = await tokens.find(tokenHash);
  if (grant?.kind !== 'projectApi') return res.writeHead(401).end();
  await limiter.admit(tokenHash, Date.now());
  const available = await ledger.available(
    { projectId: grant.projectId, monthlyAllowance: grant.monthlyBotCredits },
    new Date(),
  );
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ success: true, companyId: grant.companyId, creditos: { disponivel: available } }));
});
anchor.listen(0, '127.0.0.1');
await new Promise((r) => anchor.once('listening', r));
const anchorUrl = `http://127.0.0.1:${(anchor.address() as AddressInfo).port}/`;
const gatewayUrl = `${svc.baseUrl}/api/v1/ai/health`;

const { handler } = (await import('#functions/health/handler.ts')) as {
  handler: (e: unknown, c: unknown) => Promise<{ statusCode: number }>;
};
const direct = async () => {
  const res = await handler(apiEvent({ method: 'GET', path: '/api/v1/ai/health', headers }), lambdaContext);
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
};

// Operations per request, through the gateway.
dynamo.reset();
for (let i = 0; i < 50; i++) {
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/health`, { headers });
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
}
const opsPerRequest = dynamo.calls.length / 50;
dynamo.stop();

type Row = { p50: number; p99: number; rps: number };
const results: Record<string, Row[]> = {};
const add = (name: string, r: Row) => {
  results[name] ??= [];
  results[name].push(r);
};
for (let round = 0; round < rounds; round++) {
  for (const c of [1, 32]) {
    add(`gateway c=${c}`, await load({ url: gatewayUrl, headers, connections: c, seconds }));
    add(`bare node:http c=${c}`, await load({ url: anchorUrl, headers, connections: c, seconds }));
    add(`handler in-process c=${c}`, await inProcess(direct, seconds, c));
  }
}

const fmt = (n: number, d = 2) => n.toFixed(d);
console.log(`\nHealth path — ${machine()} — ${new Date().toISOString().slice(0, 10)}`);
console.log(`npx tsx bench/health.ts --seconds ${seconds} --rounds ${rounds}\n`);
console.log(
  `npm start to ready (median of 5): fresh DATA_DIR ${fmt(start.fresh, 0)} ms, existing DATA_DIR ${fmt(start.existing, 0)} ms`,
);
console.log(`DynamoDB operations per health request: ${fmt(opsPerRequest, 2)}\n`);
console.log('| path | p50 ms | p99 ms | req/s |');
console.log('|---|---|---|---|');
for (const [name, rows] of Object.entries(results)) {
  console.log(
    `| ${name} | ${fmt(median(rows.map((r) => r.p50)))} | ${fmt(median(rows.map((r) => r.p99)))} | ${fmt(median(rows.map((r) => r.rps)), 0)} |`,
  );
}
const ratio =
  median(results['gateway c=32']!.map((r) => r.rps)) / median(results['bare node:http c=32']!.map((r) => r.rps));
console.log(`\ngateway / bare node:http at 32 connections: ${fmt(ratio * 100, 0)} %`);

anchor.close();
anchorClient.destroy();
await svc.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
