import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/contract/keys.ts';
import { mainTable } from '#shared/contract/table.ts';
import { hashToken, secretsEqual } from '#shared/kernel/tokens.ts';
import { authorize } from '#shared/tenancy/index.ts';
import { launchBrowser } from '#test/console/browser.ts';
import { stopProcess } from '#test/support/process.ts';
import { baselineAndThis, type ComparedService } from './lib/compared-services.ts';
import { adminApi, load, machine, median, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '4' },
    baseline: { type: 'string', default: 'main' },
    paints: { type: 'string', default: '7' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-tenancy-'));

type Service = ComparedService;
const services = await baselineAndThis(scratch, values.baseline!);

let projectKey = { key: '', projectId: '' };
type Kind = 'admin-get' | 'admin-patch' | 'key-get' | 'portal-get';
type Request = { url: string; method: string; headers: Record<string, string>; body?: string };

async function requestsOf(svc: Service, withTenancy: boolean): Promise<Partial<Record<Kind, Request>>> {
  const admin = adminApi(svc);
  const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
  const { botId } = await admin('POST', `/projects/${projectId}/bots`, { name: 'b', instructions: 'Be brief.' });
  const base = `${svc.baseUrl}/admin/v1/projects/${projectId}`;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const requests: Partial<Record<Kind, Request>> = {
    'admin-get': { url: `${base}/bots`, method: 'GET', headers: bearer(svc.adminKey) },
    'admin-patch': {
      url: `${base}/bots/${botId}`,
      method: 'PATCH',
      headers: { ...bearer(svc.adminKey), 'content-type': 'application/json' },
      body: JSON.stringify({ temperature: 0.2 }),
    },
  };
  if (!withTenancy) return requests;
  const { key } = await admin('POST', `/projects/${projectId}/keys`, { name: 'bench', role: 'developer' });
  projectKey = { key, projectId };
  requests['key-get'] = { url: `${base}/bots`, method: 'GET', headers: bearer(key) };
  const { url } = await admin('POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer' });
  const opened = await fetch(`${svc.baseUrl}/admin/v1/portal/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: new URL(url).hash.slice('#code='.length) }),
  });
  requests['portal-get'] = {
    url: `${base}/bots`,
    method: 'GET',
    headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! },
  };
  return requests;
}

const targets = [
  { svc: services[0]!, requests: await requestsOf(services[0]!, false) },
  { svc: services[1]!, requests: await requestsOf(services[1]!, true) },
];

type Row = { p50: number; cpu: number; errors: number };
const results = new Map<string, Row[]>();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...targets].reverse() : targets;
  for (const t of order) {
    for (const [kind, request] of Object.entries(t.requests) as [Kind, Request][]) {
      const probe = await fetch(request.url, request);
      if (probe.status >= 300) throw new Error(`${t.svc.name} ${kind}: ${probe.status} ${await probe.text()}`);
      const cpu0 = processCpuMs(t.svc.child.pid!);
      const r = await load({ ...request, connections, seconds, warmupSeconds: 1 });
      const cpu = (processCpuMs(t.svc.child.pid!) - cpu0) / r.allRequests;
      const key = `${t.svc.name}|${kind}`;
      results.set(key, [...(results.get(key) ?? []), { p50: r.p50, cpu, errors: r.errors }]);
      console.error(
        `round ${round + 1} ${key}: p50 ${r.p50.toFixed(2)} ms, CPU ${cpu.toFixed(3)} ms/req, errors ${r.errors}`,
      );
    }
  }
}

/** CPU (ms) per call of `check`, `n` calls in a row after a warm-up, in this process. */
async function cpuPerCall(n: number, check: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 200; i++) await check();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await check();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}
const stand = (await (await fetch(`${services[1]!.baseUrl}/local/aws`)).json()) as {
  region: string;
  endpoints: { dynamodb: string };
};
const documents = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: stand.endpoints.dynamodb,
    region: stand.region,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  }),
);
const actor = { kind: 'key' as const, id: 'key_bench', projectId: projectKey.projectId, role: 'developer' as const };
const keyCheck: number[] = [];
const adminCheck: number[] = [];
for (let round = 0; round < rounds; round++) {
  keyCheck.push(
    await cpuPerCall(2000, async () => {
      const found = await documents.send(
        new GetCommand({
          TableName: mainTable.localName,
          Key: keys.managementKey(hashToken(projectKey.key)),
          ConsistentRead: true,
        }),
      );
      if (!found.Item) throw new Error('the bench key is not stored');
      authorize(actor, { role: 'viewer' }, projectKey.projectId);
    }),
  );
  adminCheck.push(
    await cpuPerCall(20_000, () => {
      if (!secretsEqual(services[1]!.adminKey, services[1]!.adminKey)) throw new Error('unequal');
      authorize({ kind: 'admin' }, { role: 'viewer' }, projectKey.projectId);
    }),
  );
}

// A portal link's first paint: a new link and a fresh browser context each time.
const paints: number[] = [];
const browser = await launchBrowser();
try {
  const svc = services[1]!;
  const admin = adminApi(svc);
  const { projectId } = await admin('POST', '/projects', { companyId: 1043, name: 'paint' });
  for (let i = 0; i < Number(values.paints); i++) {
    const { url } = await admin('POST', `/projects/${projectId}/portal-sessions`, { role: 'viewer' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    paints.push(
      await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN),
    );
    await context.close();
  }
} finally {
  await browser.close();
}

console.log(
  `\n### ${rounds} rounds of ${seconds} s, ${connections} connections (${machine()}, load ${loadavg()[0]!.toFixed(1)})`,
);
console.log('| service | request | p50 ms | CPU ms/request | errors |');
console.log('|---|---|---|---|---|');
for (const [key, rows] of results) {
  const [name, kind] = key.split('|');
  console.log(
    `| ${name} | ${kind} | ${median(rows.map((r) => r.p50)).toFixed(2)} | ${median(rows.map((r) => r.cpu)).toFixed(3)} | ${rows.reduce((s, r) => s + r.errors, 0)} |`,
  );
}
const rowsOf = (svc: Service, kind: Kind) => results.get(`${svc.name}|${kind}`)!;
for (const kind of ['admin-get', 'admin-patch'] as const) {
  const base = rowsOf(services[0]!, kind);
  const mine = rowsOf(services[1]!, kind);
  const ratio = median(mine.map((r, i) => r.cpu / base[i]!.cpu));
  const extra = median(mine.map((r, i) => r.cpu - base[i]!.cpu));
  console.log(
    `${kind}: CPU this ÷ baseline ${ratio.toFixed(3)} (median of rounds), extra ${extra.toFixed(3)} ms/request`,
  );
}
for (const kind of ['key-get', 'portal-get'] as const) {
  const base = rowsOf(services[0]!, 'admin-get');
  const mine = rowsOf(services[1]!, kind);
  const extra = median(mine.map((r, i) => r.cpu - base[i]!.cpu));
  console.log(`${kind}: extra CPU over the baseline's admin-key read ${extra.toFixed(3)} ms/request`);
}
console.log(
  `the check alone, CPU per request (median of ${rounds}): project key ${median(keyCheck).toFixed(3)} ms ` +
    `(${keyCheck.map((c) => c.toFixed(3)).join(', ')}), admin key ${median(adminCheck).toFixed(4)} ms`,
);
console.log(
  `portal link first contentful paint: median ${median(paints).toFixed(0)} ms of ${paints.length} (${paints.map((p) => p.toFixed(0)).join(', ')})`,
);
for (const svc of services) await stopProcess(svc.child, 'SIGTERM');
rmSync(scratch, { recursive: true, force: true });
