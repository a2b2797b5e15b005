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
 * With `--mode requests`, whole management requests instead (bench/lib/management-requests.ts): the admin function's
 * handler loaded here, `GET` a project and its integrations with the admin key and with a project key, interleaved;
 * the project key's cost is the difference, per round, median taken (and the same for the baseline tree's handler).
 * Run: npx tsx bench/tenancy-check.ts [--rounds 7] [--calls 2000] [--baseline <tree>] [--mode requests|calls]
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BatchGetItemCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mainTable } from '#shared/contract/table.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { dynamoDocumentClient, withoutSdkLogging } from '#shared/kernel/aws/clients.ts';
import { bearerToken, hashToken, secretsEqual } from '#shared/kernel/tokens.ts';
import { authorize, DynamoKeyStore, type KeyStore, type ManagementKey, makeManageKeys } from '#shared/tenancy/index.ts';
import { spawnService, stopProcess } from '#test/support/process.ts';
import { adminApi, machine, median } from './lib/harness.ts';
import { runCallsCount } from './lib/management-calls.ts';
import { runRequestsBench } from './lib/management-requests.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '2000' },
    // Only the variants whose name holds this text (e.g. to profile one: `--only 'as deployed'`).
    only: { type: 'string' },
    // Another checkout (the commit before, with its node_modules): its deployed check is measured in the same run.
    baseline: { type: 'string' },
    // `requests`: whole management requests through the admin function's handler; `calls`: the same, counted (not timed).
    mode: { type: 'string', default: 'checks' },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

const scratch = mkdtempSync(join(tmpdir(), 'sb-bench-tenancy-check-'));
const dataDir = join(scratch, 'data');
mkdirSync(dataDir);
const secretsKey = randomBytes(32).toString('base64');
const svc = await spawnService({ DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'SILENT', SECRETS_KEY: secretsKey }, 60_000);
const admin = adminApi(svc);
const { projectId } = await admin('POST', '/projects', { companyId: 1042, name: 'bench' });
const { key } = await admin('POST', `/projects/${projectId}/keys`, { name: 'bench', role: 'developer' });
const stand = (await (await fetch(`${svc.baseUrl}/local/aws`)).json()) as {
  region: string;
  endpoints: { dynamodb: string } & Record<string, string>;
};
if (values.mode === 'requests' || values.mode === 'calls') {
  const run = values.mode === 'calls' ? runCallsCount : runRequestsBench;
  await run({ stand, adminKey: svc.adminKey, secretsKey, projectId, projectKey: key, ...values, rounds, calls });
  await stopProcess(svc.child, 'SIGTERM').then(() => rmSync(scratch, { recursive: true, force: true }));
  process.exit(0);
}

/** The management function's check of one request: the header, the admin key, then a project key and the rule. */
function checker(store: KeyStore, code = { makeManageKeys, authorize, bearerToken, secretsEqual }) {
  const { bearerToken, secretsEqual, authorize } = code;
  const keys = code.makeManageKeys({
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

const DEPLOYED = 'project key, as deployed (this tree\u2019s DynamoKeyStore on the functions\u2019 client)';
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
  [DEPLOYED]: (
    (check) => () =>
      check(header)
  )(checker(new DynamoKeyStore(deployedTable))),
  'project key, GetItem with the SDK defaults (earlier bench)': (
    (check) => () =>
      check(header)
  )(checker(new DynamoKeyStore(defaultsTable))),
};

/** Candidates for the one read, measured beside it (each a KeyStore whose findByHash reads differently). */
class ReadVariant extends DynamoKeyStore {
  constructor(private readonly read: (keyHash: string) => Promise<ManagementKey | undefined>) {
    super(deployedTable);
  }
  override findByHash(keyHash: string) {
    return this.read(keyHash);
  }
}
const lowLevel = deployedTable.client as unknown as DynamoDBClient;
const cached = withoutSdkLogging(
  new DynamoDBClient({
    region: stand.region,
    endpoint: stand.endpoints.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
    cacheMiddleware: true,
    requestHandler: deployedTable.client.config.requestHandler,
  }),
);
const keyFields = 'keyId, projectId, #name, #role, createdAt, lastUsedAt';
const getItem = (keyHash: string) =>
  new GetItemCommand({
    TableName: mainTable.localName,
    Key: { pk: { S: `MKEY#${keyHash}` }, sk: { S: 'MKEY' } },
    ConsistentRead: true,
    ProjectionExpression: keyFields,
    ExpressionAttributeNames: { '#name': 'name', '#role': 'role' },
  });
const plain = (item: Record<string, { S?: string }> | undefined) =>
  item && (Object.fromEntries(Object.entries(item).map(([k, v]) => [k, v.S])) as unknown as ManagementKey);
variants['candidate: low-level GetItem, key pre-marshalled, projection (functions\u2019 client)'] = (
  (check) => () =>
    check(header)
)(checker(new ReadVariant(async (h) => plain((await lowLevel.send(getItem(h))).Item as never))));
variants['candidate: the same on a client with cacheMiddleware'] = (
  (check) => () =>
    check(header)
)(checker(new ReadVariant(async (h) => plain((await cached.send(getItem(h))).Item as never))));
// The SDK's per-request costs configured away: its signer built once (the client builds a new SignatureV4, and so
// derives the signing key again, on every request), then the user agent middleware left out too.
const onceSigned = withoutSdkLogging(
  new DynamoDBClient({
    region: stand.region,
    endpoint: stand.endpoints.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,

    requestHandler: deployedTable.client.config.requestHandler,
  }),
);
{
  const build = onceSigned.config.signer;
  const built = new Map<string, ReturnType<typeof build>>();
  onceSigned.config.signer = (scheme) => {
    const at = `${scheme?.signingName}/${scheme?.signingRegion}`;
    if (!built.has(at)) built.set(at, build(scheme));
    return built.get(at)!;
  };
}
variants['candidate: low-level GetItem, the signer built once'] = (
  (check) => () =>
    check(header)
)(checker(new ReadVariant(async (h) => plain((await onceSigned.send(getItem(h))).Item as never))));

// The fold: the project's item read alone (what many routes read first) against one BatchGetItem of it and the key.
const projectKey = { pk: { S: `PRJ#${projectId}` }, sk: { S: 'PRJ' } };
variants['fold: the project item alone (GetItem, functions\u2019 client)'] = async () => {
  const out = await lowLevel.send(
    new GetItemCommand({ TableName: mainTable.localName, Key: projectKey, ConsistentRead: true }),
  );
  if (!out.Item) throw new Error('no project');
};
variants['fold: the project item and the key (BatchGetItem)'] = async () => {
  const out = await lowLevel.send(
    new BatchGetItemCommand({
      RequestItems: {
        [mainTable.localName]: {
          Keys: [projectKey, { pk: { S: `MKEY#${hashToken(key)}` }, sk: { S: 'MKEY' } }],
          ConsistentRead: true,
        },
      },
    }),
  );
  if (out.Responses?.[mainTable.localName]?.length !== 2) throw new Error('not both items');
};
const target = new URL(stand.endpoints.dynamodb);
// Around the middleware: the same request signed by the client's own signer and sent by its own HTTP handler.
const direct = async (keyHash: string): Promise<ManagementKey | undefined> => {
  const config = deployedTable.client.config;
  const signer = await config.signer({ name: 'sigv4', signingName: 'dynamodb', signingRegion: stand.region } as never);
  const body = JSON.stringify({
    TableName: mainTable.localName,
    Key: { pk: { S: `MKEY#${keyHash}` }, sk: { S: 'MKEY' } },
    ConsistentRead: true,
    ProjectionExpression: keyFields,
    ExpressionAttributeNames: { '#name': 'name', '#role': 'role' },
  });
  const request = {
    protocol: target.protocol,
    hostname: target.hostname,
    port: Number(target.port),
    method: 'POST',
    path: '/',
    query: {},
    headers: {
      host: target.host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.GetItem',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
  const signed = await signer.sign(request as never, { signingRegion: stand.region, signingService: 'dynamodb' });
  const { response } = await config.requestHandler.handle(signed as never);
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${Buffer.concat(chunks)}`);
  return plain(JSON.parse(Buffer.concat(chunks).toString()).Item);
};
variants['candidate: direct: the client\u2019s signer and HTTP handler, no middleware'] = (
  (check) => () =>
    check(header)
)(checker(new ReadVariant(direct)));

// The floor, for reference only: the same GetItem as a hand-signed POST on a kept-alive socket (no SDK at all).
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const hmac = (k: Buffer | string, v: string) => createHmac('sha256', k).update(v).digest();
const sha = (v: string) => createHash('sha256').update(v).digest('hex');
function rawGetItem(keyHash: string): Promise<ManagementKey | undefined> {
  const body = JSON.stringify({
    TableName: mainTable.localName,
    Key: { pk: { S: `MKEY#${keyHash}` }, sk: { S: 'MKEY' } },
    ConsistentRead: true,
    ProjectionExpression: keyFields,
    ExpressionAttributeNames: { '#name': 'name', '#role': 'role' },
  });
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${stand.region}/dynamodb/aws4_request`;
  const headers = `content-type:application/x-amz-json-1.0\nhost:${target.host}\nx-amz-date:${amzDate}\nx-amz-target:DynamoDB_20120810.GetItem\n`;
  const signed = 'content-type;host;x-amz-date;x-amz-target';
  const canonical = `POST\n/\n\n${headers}\n${signed}\n${sha(body)}`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha(canonical)}`;
  const signingKey = hmac(hmac(hmac(hmac('AWS4local', day), stand.region), 'dynamodb'), 'aws4_request');
  const signature = hmac(signingKey, toSign).toString('hex');
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-date': amzDate,
          'x-amz-target': 'DynamoDB_20120810.GetItem',
          authorization: `AWS4-HMAC-SHA256 Credential=local/${scope}, SignedHeaders=${signed}, Signature=${signature}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${Buffer.concat(chunks)}`));
          resolve(plain(JSON.parse(Buffer.concat(chunks).toString()).Item));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
variants['floor: the same GetItem hand-signed over node:http (no SDK; reference only)'] = (
  (check) => () =>
    check(header)
)(checker(new ReadVariant(rawGetItem)));
const BASELINE = `project key, as deployed in the baseline (${values.baseline})`;
if (values.baseline) {
  // The baseline's own code end to end: its check, its key store, its client (its own copy of the SDK).
  const dir = resolve(values.baseline);
  const from = (path: string) => import(pathToFileURL(join(dir, path)).href);
  const [tenancy, tokens, clients, config] = await Promise.all([
    from('shared/tenancy/index.ts'),
    from('shared/kernel/tokens.ts'),
    from('shared/kernel/aws/clients.ts'),
    from('shared/kernel/config.ts'),
  ]);
  const client = clients.dynamoDocumentClient(
    config.parseConfig({
      TABLE_NAME: mainTable.localName,
      DYNAMODB_ENDPOINT: stand.endpoints.dynamodb,
      AWS_REGION: stand.region,
    }),
  );
  const store = new tenancy.DynamoKeyStore({ client, tableName: mainTable.localName });
  const check = checker(store, {
    makeManageKeys: tenancy.makeManageKeys,
    authorize: tenancy.authorize,
    bearerToken: tokens.bearerToken,
    secretsEqual: tokens.secretsEqual,
  });
  variants[BASELINE] = () => check(header);
}
if (values.only) for (const name of Object.keys(variants)) if (!name.includes(values.only)) delete variants[name];

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
const anchor = median(results.get('admin key (anchor)') ?? [Number.NaN]);
for (const [name, cpu] of results) {
  console.log(`| ${name} | ${median(cpu).toFixed(4)} | ${cpu.map((c) => c.toFixed(4)).join(', ')} |`);
}
console.log(`anchor (admin key) ${anchor.toFixed(4)} ms`);
const these = results.get(DEPLOYED);
const before = results.get(BASELINE);
if (these && before) {
  const ratios = these.map((c, i) => c / before[i]!);
  console.log(
    `as deployed, this \u00f7 baseline (median of per-round ratios): ${median(ratios).toFixed(3)} ` +
      `(${ratios.map((r) => r.toFixed(3)).join(', ')}); this ${median(these).toFixed(4)} ms, ` +
      `baseline ${median(before).toFixed(4)} ms, difference of medians ${(median(these) - median(before)).toFixed(4)} ms`,
  );
}
await stopProcess(svc.child, 'SIGTERM');
rmSync(scratch, { recursive: true, force: true });
