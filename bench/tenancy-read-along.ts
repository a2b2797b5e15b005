/**
 * The read a project key's request makes against the one the admin key's request makes, alone, in this process: the
 * admin key's route reads its project (`DynamoProjectStore.get`: one GetItem through the document client); a project
 * key's request reads its key and that project in one BatchGetItem (`DynamoKeyStore.findByHash` with the project
 * along, the key's SHA-256 included), and the route is then served from it. The difference is what the read adds to
 * a project key's request. Also measured: the same BatchGetItem through the document client (`readBatch`), as the
 * read was made before it was sent in DynamoDB's own form. The table is the spawned service's stand-in (its CPU is
 * not counted); CPU is this process's user + system time, variants in turns of 50 calls, the order reversed every
 * other turn; the median of rounds and of the per-round differences.
 * Run: npx tsx bench/tenancy-read-along.ts [--rounds 5] [--calls 600]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { keys as tableKeys } from '#shared/contract/keys.ts';
import { mainTable } from '#shared/contract/table.ts';
import { dynamoDocumentClient } from '#shared/kernel/aws/clients.ts';
import { readBatch } from '#shared/kernel/aws/dynamo-table.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { DynamoKeyStore } from '#shared/tenancy/index.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { adminApi, machine, median, numberArg } from './lib/harness.ts';

const rounds = numberArg('rounds', 5);
const calls = numberArg('calls', 600);
const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-read-along-'));
mkdirSync(join(scratch, 'data'));
const secretsKey = randomBytes(32).toString('base64');
const svc = await spawnService(
  { DATA_DIR: join(scratch, 'data'), POWERTOOLS_LOG_LEVEL: 'SILENT', SECRETS_KEY: secretsKey },
  60_000,
);
const admin = adminApi(svc);
const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
const { key } = await admin('POST', `/projects/${projectId}/keys`, { name: 'bench', role: 'developer' });
const stand = (await (await fetch(`${svc.baseUrl}/local/aws`)).json()) as {
  region: string;
  endpoints: Record<string, string>;
};
const config = {
  TABLE_NAME: mainTable.localName,
  DYNAMODB_ENDPOINT: stand.endpoints.dynamodb,
  AWS_REGION: stand.region,
};
const table = { client: dynamoDocumentClient(parseConfig(config)), tableName: mainTable.localName };
const projects = new DynamoProjectStore(table);
const keyStore = new DynamoKeyStore(table);
const FIELDS = ['keyId', 'projectId', 'name', 'role', 'createdAt', 'lastUsedAt'];
const along = {
  key: tableKeys.project(projectId),
  attributes: ['project'],
  found: (item?: Record<string, unknown>) => {
    if (!item?.project) throw new Error('no project');
  },
};
const ANCHOR = "admin key's read: the project (GetItem, document client)";
const variants: Record<string, () => Promise<void>> = {
  [ANCHOR]: async () => {
    if (!(await projects.get(projectId))) throw new Error('no project');
  },
  "project key's read: key and project (BatchGetItem, DynamoDB's form), as deployed": async () => {
    if (!(await keyStore.findByHash(hashToken(key), along))) throw new Error('no key');
  },
  'the same BatchGetItem through the document client (readBatch, the read before)': async () => {
    const both = [tableKeys.managementKey(hashToken(key)), tableKeys.project(projectId)];
    if ((await readBatch(table, both, [...FIELDS, 'project'])).length !== 2) throw new Error('not both items');
  },
};
for (const run of Object.values(variants)) for (let i = 0; i < 100; i++) await run();
const startedAt = new Date().toISOString();
const loads: string[] = [];
const results = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  loads.push(loadavg()[0]!.toFixed(1));
  const spent = new Map<string, number>();
  for (let done = 0, turn = 0; done < calls; done += 50, turn++) {
    const order = Object.entries(variants);
    for (const [name, run] of turn % 2 ? order.reverse() : order) {
      const before = process.cpuUsage();
      for (let i = 0; i < 50; i++) await run();
      const used = process.cpuUsage(before);
      spent.set(name, (spent.get(name) ?? 0) + (used.user + used.system) / 1000);
    }
  }
  for (const [name, ms] of spent) results.set(name, [...(results.get(name) ?? []), ms / calls]);
}
console.log(`#### ${rounds} rounds of ${calls} calls, ${machine()}, started ${startedAt}, load ${loads.join('/')}`);
const anchor = results.get(ANCHOR)!;
for (const [name, cpu] of results) {
  const deltas = cpu.map((c, i) => c - anchor[i]!);
  console.log(`| ${name} | ${median(cpu).toFixed(4)} ms | ${cpu.map((c) => c.toFixed(4)).join(', ')} |`);
  if (name !== ANCHOR) {
    console.log(
      `|   less the admin key's read | ${median(deltas).toFixed(4)} ms | ${deltas.map((d) => d.toFixed(4)).join(', ')} |`,
    );
  }
}
console.log(
  `load after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await stopProcess(svc.child, 'SIGTERM');
rmSync(scratch, { recursive: true, force: true });
process.exit(0);
