import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { mainTable } from '#shared/contract/table.ts';
import { armedThrottles, type ThrottleRule } from './throttle-rules.ts';

/** The stand-ins' side of the throttles (local/throttle-rules.ts): DynamoDB's and SQS's refusals, as AWS answers them. */

// DynamoDB (dynalite)
// ---------------------------------------------------------------------------------------------------------------

type AttributeValue = { S?: string; N?: string; [type: string]: unknown };
type Item = Record<string, AttributeValue>;

/** The parts of a DynamoDB request body the throttle reads. */
interface DynamoRequest {
  Key?: Item;
  Item?: Item;
  IndexName?: string;
  KeyConditionExpression?: string;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
  RequestItems?: Record<string, unknown>;
}
type WriteRequest = { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } };

/** One table item a call reads or writes, as far as the call itself tells. */
interface Touched {
  key: Item;
  /** The item as written (PutItem): its index keys. */
  put?: Item;
  /** The update's effect on attributes (UpdateItem): set to a value, or removed. */
  update?: { set: Map<string, AttributeValue | undefined>; removed: Set<string>; touched: Set<string> };
  deleted?: boolean;
}

/** Marks the throttle's own reads (an item's index keys before a write), which it never throttles. */
export const BYPASS_HEADER = 'x-local-throttle-bypass';

/** Reads an item's index key attributes as they are now: how a rule on an index sees the item before a write. */
export type ReadIndexKeys = (key: Item) => Promise<Item | undefined>;

/**
 * Puts the throttle in front of dynalite's request handler. Unarmed, each request costs one look at the environment.
 * `readIndexKeys` reads an item's current index keys (only when an index rule is armed and a write may touch it).
 */
export function throttleDynamo(server: Server, readIndexKeys: ReadIndexKeys): void {
  const [handler] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (!handler) throw new Error('dynalite has no request handler to put the throttle in front of');
  server.removeListener('request', handler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const rules = armedThrottles().filter((r) => r.where !== 'queue');
    if (!rules.length || req.method !== 'POST' || req.headers[BYPASS_HEADER]) return handler(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      decide(rules, String(req.headers['x-amz-target'] ?? ''), body, readIndexKeys).then(
        (decision) => {
          if (decision.kind === 'throttle') return throttled(res);
          const forwarded = decision.kind === 'partial' ? Buffer.from(JSON.stringify(decision.body)) : body;
          if (decision.kind === 'partial') addUnprocessed(res, decision.unprocessed);
          handler(replay(req, forwarded), res);
        },
        () => handler(replay(req, body), res),
      );
    });
  });
}

type Decision =
  | { kind: 'pass' }
  | { kind: 'throttle' }
  | { kind: 'partial'; body: Record<string, unknown>; unprocessed: { field: string; entries: unknown[] } };

async function decide(rules: ThrottleRule[], target: string, raw: Buffer, readIndexKeys: ReadIndexKeys) {
  const operation = target.slice(target.indexOf('.') + 1);
  let body: DynamoRequest;
  try {
    body = JSON.parse(raw.toString('utf8') || '{}') as DynamoRequest;
  } catch {
    return { kind: 'pass' } as Decision;
  }
  const hits = (touched: Touched[], write: boolean) => anyHit(rules, touched, write, readIndexKeys);
  switch (operation) {
    case 'GetItem':
      return verdict(await hits([{ key: body.Key ?? {} }], false));
    case 'PutItem':
      return verdict(await hits([{ key: keyOf(body.Item ?? {}), put: body.Item ?? {} }], true));
    case 'DeleteItem':
      return verdict(await hits([{ key: body.Key ?? {}, deleted: true }], true));
    case 'UpdateItem':
      return verdict(await hits([{ key: body.Key ?? {}, update: updateEffect(body) }], true));
    case 'Query':
    case 'Scan':
      return verdict(queryHit(rules, body));
    case 'BatchGetItem':
      return batch(
        body,
        'UnprocessedKeys',
        (entries) => (entries as { Keys: Item[] }).Keys,
        async (key) => hits([{ key }], false),
      );
    case 'BatchWriteItem':
      return batch(
        body,
        'UnprocessedItems',
        (entries) => entries as WriteRequest[],
        async (request) =>
          hits(
            [
              request.PutRequest
                ? { key: keyOf(request.PutRequest.Item), put: request.PutRequest.Item }
                : { key: request.DeleteRequest?.Key ?? {}, deleted: true },
            ],
            true,
          ),
      );
    default:
      return { kind: 'pass' } as Decision;
  }
}

const verdict = (hit: boolean): Decision => (hit ? { kind: 'throttle' } : { kind: 'pass' });

/** A batch: the throttled entries come back unprocessed, the rest go through; all throttled, the exception. */
async function batch<E>(
  body: DynamoRequest,
  unprocessedField: 'UnprocessedKeys' | 'UnprocessedItems',
  entriesOf: (perTable: unknown) => E[],
  hit: (entry: E) => Promise<boolean>,
): Promise<Decision> {
  const kept: Record<string, unknown> = {};
  const unprocessed: Record<string, unknown> = {};
  let total = 0;
  let throttledCount = 0;
  for (const [table, perTable] of Object.entries(body.RequestItems ?? {})) {
    const entries = entriesOf(perTable);
    const flags = await Promise.all(entries.map(hit));
    const pass = entries.filter((_, i) => !flags[i]);
    const stop = entries.filter((_, i) => flags[i]);
    total += entries.length;
    throttledCount += stop.length;
    const wrap = (list: E[]) =>
      unprocessedField === 'UnprocessedKeys' ? { ...(perTable as object), Keys: list } : list;
    if (pass.length) kept[table] = wrap(pass);
    if (stop.length) unprocessed[table] = wrap(stop);
  }
  if (!throttledCount) return { kind: 'pass' };
  if (throttledCount === total) return { kind: 'throttle' };
  return {
    kind: 'partial',
    body: { ...body, RequestItems: kept },
    unprocessed: { field: unprocessedField, entries: [unprocessed] },
  };
}

const keyOf = (item: Item): Item => ({
  [mainTable.partitionKey]: item[mainTable.partitionKey]!,
  [mainTable.sortKey]: item[mainTable.sortKey]!,
});

const text = (value: AttributeValue | undefined) => value?.S ?? value?.N;

async function anyHit(
  rules: ThrottleRule[],
  touched: Touched[],
  write: boolean,
  readIndexKeys: ReadIndexKeys,
): Promise<boolean> {
  const op = write ? 'write' : 'read';
  const applies = rules.filter((r) => r.ops === 'all' || r.ops === op);
  for (const item of touched) {
    const pk = text(item.key?.[mainTable.partitionKey]);
    const sk = text(item.key?.[mainTable.sortKey]) ?? '';
    const tableHit = (r: ThrottleRule) =>
      r.where === 'table' && r.pattern.test(pk!) && (r.sortPattern?.test(sk) ?? true);
    if (pk !== undefined && applies.some(tableHit)) return true;
    if (!write) continue;
    const indexRules = applies.filter((r) => r.where !== 'table');
    if (!indexRules.length) continue;
    const before = await readIndexKeys(item.key);
    for (const gsi of mainTable.globalSecondaryIndexes) {
      const rulesHere = indexRules.filter((r) => r.where === gsi.indexName);
      if (!rulesHere.length) continue;
      const beforePk = text(before?.[gsi.partitionKey]);
      const afterPk = item.deleted ? undefined : afterValue(item, gsi.partitionKey, before);
      const inIndex = [beforePk, afterPk].filter((v): v is string => v !== undefined);
      if (!inIndex.some((v) => rulesHere.some((r) => r.pattern.test(v)))) continue;
      if (writesIndex(item, gsi, beforePk, afterPk)) return true;
    }
  }
  return false;
}

function afterValue(item: Touched, attribute: string, before: Item | undefined): string | undefined {
  if (item.put) return text(item.put[attribute]);
  if (item.update?.removed.has(attribute)) return undefined;
  if (item.update?.set.has(attribute)) return text(item.update.set.get(attribute)) ?? text(before?.[attribute]);
  return text(before?.[attribute]);
}

/**
 * Whether the write changes the index's copy: the item joins or leaves it, its index keys change, or (the index
 * projects every attribute) anything about it changes.
 */
function writesIndex(
  item: Touched,
  gsi: (typeof mainTable.globalSecondaryIndexes)[number],
  beforePk: string | undefined,
  afterPk: string | undefined,
): boolean {
  if (beforePk !== afterPk || item.put || item.deleted) return true;
  const projection = (gsi as { projection?: unknown }).projection;
  if (projection === undefined || projection === 'ALL') return true;
  const projected = new Set<string>([gsi.partitionKey, gsi.sortKey, mainTable.partitionKey, mainTable.sortKey]);
  if (Array.isArray(projection)) for (const name of projection) projected.add(String(name));
  return [...(item.update?.touched ?? [])].some((name) => projected.has(name));
}

/** The top-level attributes an UpdateItem sets (with the value when it is a plain `:value`), removes or touches. */
export function updateEffect(body: {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}): NonNullable<Touched['update']> {
  const names = body.ExpressionAttributeNames ?? {};
  const values = body.ExpressionAttributeValues ?? {};
  const set = new Map<string, AttributeValue | undefined>();
  const removed = new Set<string>();
  const touched = new Set<string>();
  const expression = body.UpdateExpression ?? '';
  const clauses = expression.split(/\b(SET|REMOVE|ADD|DELETE)\b/i).slice(1);
  for (let i = 0; i < clauses.length; i += 2) {
    const action = clauses[i]!.toUpperCase();
    for (const part of topLevelParts(clauses[i + 1] ?? '')) {
      const [path, rest] =
        action === 'SET' ? splitOnce(part, '=') : action === 'REMOVE' ? [part, ''] : splitOnce(part, ' ');
      const head = path.trim().split(/[.[]/)[0]!.trim();
      const name = head.startsWith('#') ? (names[head] ?? head) : head;
      if (!name) continue;
      touched.add(name);
      if (action === 'REMOVE') removed.add(name);
      if (action === 'SET') {
        const value = rest.trim();
        set.set(name, /^:[A-Za-z0-9_]+$/.test(value) ? values[value] : undefined);
      }
    }
  }
  return { set, removed, touched };
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.trim().indexOf(separator);
  const trimmed = text.trim();
  return at < 0 ? [trimmed, ''] : [trimmed.slice(0, at), trimmed.slice(at + separator.length)];
}

/** Splits a clause's comma-separated actions, leaving commas inside function calls alone. */
function topLevelParts(clause: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < clause.length; i++) {
    const c = clause[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(clause.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(clause.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** Whether a Query (or Scan) reads a partition a rule names: the table's, or an index's. */
function queryHit(rules: ThrottleRule[], body: DynamoRequest): boolean {
  const where = body.IndexName ?? 'table';
  const applies = rules.filter((r) => r.where === where && r.ops !== 'write');
  if (!applies.length) return false;
  const partitionKey =
    where === 'table'
      ? mainTable.partitionKey
      : mainTable.globalSecondaryIndexes.find((g) => g.indexName === where)?.partitionKey;
  const names = body.ExpressionAttributeNames ?? {};
  const values = body.ExpressionAttributeValues ?? {};
  for (const [, name, value] of String(body.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const attribute = name!.startsWith('#') ? names[name!] : name;
    if (attribute !== partitionKey) continue;
    const pk = text(values[value!]);
    return pk !== undefined && applies.some((r) => r.pattern.test(pk));
  }
  // A Scan reads every partition.
  return applies.some((r) => r.pattern.test(''));
}

function throttled(res: ServerResponse): void {
  const body = JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  });
  res.statusCode = 400;
  res.setHeader('x-amzn-RequestId', `throttled${Date.now()}`);
  res.setHeader('x-amz-crc32', crc32(body));
  res.setHeader('Content-Type', 'application/x-amz-json-1.0');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The request again, with `body` as its content: what dynalite's handler reads. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = Readable.from([body]) as unknown as IncomingMessage;
  Object.assign(copy, { headers: req.headers, method: req.method, url: req.url });
  return copy;
}

/** Adds the throttled batch entries to dynalite's answer as unprocessed (its CRC recomputed). */
function addUnprocessed(res: ServerResponse, unprocessed: { field: string; entries: unknown[] }): void {
  const end = res.end.bind(res);
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    /^(content-length|x-amz-crc32)$/i.test(name) ? res : setHeader(name, value);
  res.end = ((chunk: unknown) => {
    let out = String(chunk ?? '');
    if (res.statusCode === 200) {
      const answer = JSON.parse(out) as Record<string, Record<string, unknown>>;
      answer[unprocessed.field] = { ...answer[unprocessed.field], ...(unprocessed.entries[0] as object) };
      out = JSON.stringify(answer);
    }
    setHeader('x-amz-crc32', crc32(out));
    setHeader('Content-Length', Buffer.byteLength(out));
    return end(out);
  }) as ServerResponse['end'];
}

// ---------------------------------------------------------------------------------------------------------------
// SQS (fauxqs)
// ---------------------------------------------------------------------------------------------------------------

interface FastifyLike {
  addHook(
    name: 'preHandler',
    hook: (
      request: { headers: Record<string, unknown>; body: unknown },
      reply: { status(code: number): unknown; header(name: string, value: string): unknown; send(body: unknown): void },
      done: () => void,
    ) => void,
  ): unknown;
}

/** Refuses SendMessage / SendMessageBatch to a queue a `queue:` rule names, as SQS refuses a throttled call. */
export function throttleQueues(app: FastifyLike): void {
  app.addHook('preHandler', (request, reply, done) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (target !== 'AmazonSQS.SendMessage' && target !== 'AmazonSQS.SendMessageBatch') return done();
    const rules = armedThrottles().filter((r) => r.where === 'queue');
    const url = String((request.body as { QueueUrl?: unknown } | undefined)?.QueueUrl ?? '');
    const name = url.slice(url.lastIndexOf('/') + 1);
    if (!rules.some((r) => r.pattern.test(name))) return done();
    reply.status(400);
    reply.header('content-type', 'application/x-amz-json-1.0');
    reply.header('x-amzn-query-error', 'RequestThrottled;Sender');
    reply.send({ __type: 'com.amazonaws.sqs#RequestThrottled', message: 'Request is throttled.' });
  });
}
