/**
 * What recognising a project key (`Authorization: Bearer sbm_…`) costs the management function in CPU, split in two:
 *  - our code alone: the header's parse, the admin key's constant-time comparison, the key's shape and SHA-256, the
 *    route's rule, with the key store in memory (no I/O);
 *  - the whole check as deployed: the same code over the deployment's key store (`DynamoKeyStore` on the functions'
 *    own DynamoDB client, `dynamoDocumentClient`: one strongly consistent GetItem), the SDK's client-side work
 *    (signing, HTTP, parsing) included; the table is the local stand-in, in another process (the service spawned as
 *    `npm start` runs it), so its CPU is not counted here;
 *  - and, as the earlier bench measured it, the GetItem through a document client with the SDK's default middleware
 *    (its logger middleware still on), to show what that measurement included.
 * Anchor, in the same run: the operator's admin-key check (comparison and rule). CPU is this process's user + system
 * time over `--calls` sequential checks after a warm-up, the median of `--rounds` rounds, variants interleaved.
 * Run: npx tsx bench/tenancy-check.ts [--rounds 7] [--calls 2000]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mainTable } from '#shared/contract/table.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { dynamoDocumentClient } from '#shared/kernel/aws/clients.ts';
import { bearerToken, hashToken, secretsEqual } from '#shared/kernel/tokens.ts';
import { authorize, DynamoKeyStore, type KeyStore, type ManagementKey, makeManageKeys } from '#shared/tenancy/index.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { adminApi, machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, calls: { type: 'string', default: '2000' } },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-tenancy-check-'));
const dataDir = join(scratch, 'data');
mkdirSync(dataDir);
const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT' }, 60_000);
const admin = adminApi(svc);
const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
const { key } = await admin('POST', `/projects/${projectId}/keys`, { name: 'bench', role: 'developer' });
const stand = (await (await fetch(`${svc.baseUrl}/local/aws`)).json()) as {
  region: string;
  endpoints: { dynamodb: string };
};

/** The management function's check of one request: the header, the admin key, then a project key and the rule. */
function checker(store: KeyStore) {
  const keys = makeManageKeys({
    keys: store,
    projectExists: async () => true,
    touchEverySeconds: 60,
    onTouchFailed: () => {},
  });
  return async (header: string) => {
    const presented = bearerToken(header)!;
    if (secretsEqual(presented, svc.adminKey)) throw new Error('not the admin key');
    const found = await keys.recognise(presented);
    if (!found) throw new Error('the bench key is not recognised');
    authorize(
      { kind: 'key', id: found.keyId, projectId: found.projectId, role: found.role },
      { role: 'viewer' },
      projectId,
    );
  };
}

/** The key store in memory: what the key's item holds, found by its hash. */
class MemoryKeyStore implements KeyStore {
  constructor(private readonly found: ManagementKey) {}
  async create() {}
  async list() {
    return { items: [] };
  }
  async findByHash() {
    return this.found;
  }
  async revoke() {
    return false;
  }
  async touch() {}
}

const deployedTable = {
  client: dynamoDocumentClient(
    parseConfig({
      TABLE_NAME: mainTable.localName,
      DYNAMODB_ENDPOINT: stand.endpoints.dynamodb,
      AWS_REGION: stand.region,
    }),
  ),
  tableName: mainTable.localName,
};
const defaultsTable = {
  client: DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stand.endpoints.dynamodb,
      region: stand.region,
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    }),
  ),
  tableName: mainTable.localName,
};
const stored = (await new DynamoKeyStore(deployedTable).findByHash(hashToken(key)))!;
const header = `Bearer ${key}`;
const variants: Record<string, () => Promise<void> | void> = {
  'admin key (anchor)': () => {
    if (!secretsEqual(bearerToken(`Bearer ${svc.adminKey}`)!, svc.adminKey)) throw new Error('unequal');
    authorize({ kind: 'admin' }, { role: 'viewer' }, projectId);
  },
  'project key, our code (store in memory)': (
    (check) => () =>
      check(header)
  )(checker(new MemoryKeyStore(stored))),
  'project key, as deployed (GetItem, functions\u2019 client)': (
    (check) => () =>
      check(header)
  )(checker(new DynamoKeyStore(deployedTable))),
  'project key, GetItem with the SDK defaults (earlier bench)': (
    (check) => () =>
      check(header)
  )(checker(new DynamoKeyStore(defaultsTable))),
};

async function cpuPerCall(n: number, run: () => Promise<void> | void): Promise<number> {
  for (let i = 0; i < 200; i++) await run();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}

const results = new Map<string, number[]>();
const loads: number[] = [];
for (let round = 0; round < rounds; round++) {
  loads.push(loadavg()[0]!);
  const names = Object.keys(variants);
  for (const name of round % 2 ? names.reverse() : names) {
    const n = name.startsWith('admin') || name.includes('memory') ? calls * 10 : calls;
    results.set(name, [...(results.get(name) ?? []), await cpuPerCall(n, variants[name]!)]);
  }
  console.error(`round ${round + 1}: ${[...results].map(([k, v]) => `${k} ${v.at(-1)!.toFixed(4)}`).join(', ')}`);
}

console.log(
  `\n### ${rounds} rounds of ${calls} checks (${machine()}, load ${loads.map((l) => l.toFixed(0)).join('/')})`,
);
console.log('| check | CPU ms per request (median) | rounds |');
console.log('|---|---|---|');
const anchor = median(results.get('admin key (anchor)')!);
for (const [name, cpu] of results) {
  console.log(`| ${name} | ${median(cpu).toFixed(4)} | ${cpu.map((c) => c.toFixed(4)).join(', ')} |`);
}
console.log(`anchor (admin key) ${anchor.toFixed(4)} ms`);
await stopProcess(svc.child, 'SIGTERM');
rmSync(scratch, { recursive: true, force: true });
