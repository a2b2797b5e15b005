import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { invocations, type Invocation } from '#local/lambda-context.ts';
import type { AttributeMap } from './item-size.ts';
import type { TableSchema } from './template.ts';

/**
 * Records every DynamoDB, SQS and S3 request a local service makes, as it is sent, with who made it: the function
 * whose invocation sent it (the runner's tracing channel, ./local/lambda-context.ts) and the workload's phase (the
 * request type being measured). Needs the one-loop runner (`LOCAL_THREADS=0`): the functions, the stand-ins and this
 * recorder share one process.
 *
 * - DynamoDB, at dynalite's server: each item written with its image before and after (taken inside dynalite, where
 *   the write is applied, so a before image is exact), each conditional write refused with the item it was refused
 *   on, each item read by GetItem or BatchGetItem, and each item a Query evaluated (before its filter, as DynamoDB
 *   charges them).
 * - SQS and S3, at the SDK client (`send`): the command's input and output.
 * - Every invocation of a function (its event: a worker's batch and its message groups).
 */

/** Who made a call: the phase (request type) the workload was in, and the function (or `runner`, `client`). */
export interface Attribution {
  phase: string;
  fn: string;
}

export interface DynamoWrite {
  key: AttributeMap;
  before?: AttributeMap;
  after?: AttributeMap;
  /** A conditional write refused: charged for the item it was checked against, nothing written. */
  refused?: boolean;
}

export interface DynamoRead {
  /** The index queried, or none (the table). */
  index?: string;
  /** The partition key value read (the table's, or the index's). */
  partition: string;
  /** The items evaluated (whole items: the local index projects everything). */
  items: AttributeMap[];
  consistent: boolean;
  /** A Query (charged per 4 KB of the sum of its items) rather than one GetItem (per item, at least one unit). */
  query: boolean;
}

export interface DynamoCall extends Attribution {
  service: 'dynamodb';
  /** Epoch ms it arrived. */
  at: number;
  op: string;
  writes: DynamoWrite[];
  reads: DynamoRead[];
  status?: number;
}

export interface SdkCall extends Attribution {
  service: 'sqs' | 's3';
  op: string;
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  error?: string;
}

export interface InvocationRecord extends Attribution {
  /** An HTTP function's API method (`POST /inbound/twilio/{channelId}`), as API Gateway names it. */
  method?: string;
  /** Records of a worker's batch (1 for an HTTP or scheduled invocation). */
  records: number;
  /** FIFO message groups in the batch. */
  groups: string[];
}

export type WireCall = DynamoCall | SdkCall;

/** The function name of calls the workload makes to check on progress: not the service's, never counted. */
export const PROBE = 'probe';

export interface Recording {
  calls: WireCall[];
  invocations: InvocationRecord[];
  /** The phase calls are attributed to from now on. */
  phase: string;
  /** Calls recorded since the clock's `ms` (for quiet detection). */
  lastCallAt: number;
  /** Invocations running now (the scheduled sweepers aside). */
  running(): number;
  /** Runs `run` as the workload's own check on progress: its calls are marked `probe`. */
  probe<T>(run: () => Promise<T>): Promise<T>;
  stop(): void;
}

type DynaliteDb = {
  addConsumedCapacity: (data: any, isRead: boolean, a?: AttributeMap, b?: AttributeMap) => unknown;
  checkConditional: (data: any, existing?: AttributeMap) => unknown;
  queryTable: (...args: any[]) => void;
};

const require = createRequire(import.meta.url);

/**
 * Starts recording. Call before the service starts (the SDK and dynalite hooks must be in place when it loads), then
 * `attachDynamo(server)` once dynalite listens.
 */
export function startRecording(
  schema: TableSchema,
  /** Functions whose calls never make the service busy (the scheduled sweepers): ignored by `lastCallAt`. */
  background: ReadonlySet<string> = new Set(),
): Recording & { attachDynamo(server: Server): void } {
  const keyAttributes = { partitionKey: schema.partitionKey, sortKey: schema.sortKey ?? '' };
  const indexPartitionKeys = Object.fromEntries(schema.indexes.map((i) => [i.name, i.partitionKey]));
  const recording = {
    calls: [] as WireCall[],
    invocations: [] as InvocationRecord[],
    phase: 'setup',
    lastCallAt: Date.now(),
  };
  const now = () => Date.now();
  const fnScope = new AsyncLocalStorage<string>();
  const callScope = new AsyncLocalStorage<DynamoCall>();
  const attribution = (fallback: string): Attribution => ({
    phase: recording.phase,
    fn: fnScope.getStore() ?? fallback,
  });

  // ---- invocations: which function is running ------------------------------------------------------------------
  const bindFn = (ctx: Invocation) => {
    const event = ctx.event as {
      Records?: { attributes?: { MessageGroupId?: string } }[];
      httpMethod?: string;
      resource?: string;
    };
    const records = event?.Records;
    recording.invocations.push({
      phase: recording.phase,
      fn: ctx.functionName,
      ...(event?.httpMethod && event.resource ? { method: `${event.httpMethod} ${event.resource}` } : {}),
      records: records?.length ?? 1,
      groups: [...new Set((records ?? []).map((r) => r.attributes?.MessageGroupId).filter((g): g is string => !!g))],
    });
    return ctx.functionName;
  };
  invocations.start.bindStore(fnScope, bindFn);
  // Invocations still running (the sweepers aside): work a phase caused that has not finished.
  const running = new Set<Invocation>();
  const tracking = {
    start: (ctx: Invocation) => void (background.has(ctx.functionName) || running.add(ctx)),
    end: (ctx: Invocation & { error?: unknown; result?: unknown }) => {
      if ('error' in ctx && !ctx.result) running.delete(ctx);
    },
    asyncStart: () => {},
    asyncEnd: (ctx: Invocation) => void running.delete(ctx),
    error: () => {},
  };
  invocations.subscribe(tracking as never);

  // ---- DynamoDB: who sent each request (its socket), then what dynalite did with it ------------------------------
  const bySocketPort = new Map<number, Attribution>();
  const onClientRequest = ({ request }: { request: ClientRequest }) => {
    const target = String(request.getHeader('x-amz-target') ?? '');
    if (!target.startsWith('DynamoDB')) return;
    const who = attribution('runner');
    // Published once the request has its socket (a fresh one may not be connected yet).
    const socket = request.socket as Socket | null;
    const remember = (s: Socket) => bySocketPort.set(s.localPort!, who);
    if (socket?.localPort) remember(socket);
    else if (socket) socket.once('connect', () => remember(socket));
    else request.once('socket', (s: Socket) => (s.localPort ? remember(s) : s.once('connect', () => remember(s))));
  };
  subscribe('http.client.request.start', onClientRequest as (m: unknown) => void);

  const db = require('dynalite/db') as DynaliteDb;
  const original = {
    addConsumedCapacity: db.addConsumedCapacity,
    checkConditional: db.checkConditional,
    queryTable: db.queryTable,
  };
  const keyOf = (data: any): AttributeMap =>
    data.Key ?? {
      [keyAttributes.partitionKey]: data.Item?.[keyAttributes.partitionKey],
      [keyAttributes.sortKey]: data.Item?.[keyAttributes.sortKey],
    };
  db.addConsumedCapacity = function (data, isRead, a, b) {
    const call = callScope.getStore();
    if (call) {
      if (isRead)
        call.reads.push({
          partition: String(data.Key?.[keyAttributes.partitionKey]?.S ?? ''),
          items: a ? [a] : [],
          consistent: Boolean(data.ConsistentRead),
          query: false,
        });
      else call.writes.push({ key: keyOf(data), ...(a ? { before: a } : {}), ...(b ? { after: b } : {}) });
    }
    return original.addConsumedCapacity.call(this, data, isRead, a, b);
  };
  db.checkConditional = function (data, existing) {
    const refused = original.checkConditional.call(this, data, existing);
    const call = callScope.getStore();
    if (refused && call)
      call.writes.push({ key: keyOf(data), ...(existing ? { before: existing } : {}), refused: true });
    return refused;
  };
  db.queryTable = function (store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb) {
    const call = callScope.getStore();
    if (call) {
      // The same range again, without filter or projection: the items the query evaluated, whole.
      const evaluated = {
        ...data,
        _filter: undefined,
        QueryFilter: undefined,
        _projection: undefined,
        AttributesToGet: undefined,
        Select: undefined,
        ReturnConsumedCapacity: undefined,
      };
      const partitionAttribute = data.IndexName ? indexPartitionKeys[data.IndexName] : keyAttributes.partitionKey;
      const condition = data.KeyConditions?.[partitionAttribute ?? '']?.AttributeValueList?.[0];
      original.queryTable.call(
        this,
        store,
        table,
        evaluated,
        { ...opts },
        isLocal,
        false,
        startKeyNames,
        (err: unknown, result: { Items?: AttributeMap[] }) => {
          if (err) return;
          call.reads.push({
            ...(data.IndexName ? { index: data.IndexName } : {}),
            partition: String(condition?.S ?? ''),
            items: result.Items ?? [],
            consistent: Boolean(data.ConsistentRead),
            query: true,
          });
        },
      );
    }
    return original.queryTable.call(this, store, table, data, opts, isLocal, fetchFromItemDb, startKeyNames, cb);
  };

  let dynamoServer: Server | undefined;
  let handlers: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
  let wrapped: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  // ---- SQS and S3: the SDK's send --------------------------------------------------------------------------------
  const { Client } = require('@smithy/core/client') as {
    Client: { prototype: { send: (...args: any[]) => any; config?: { serviceId?: string } } };
  };
  const send = Client.prototype.send;
  Client.prototype.send = function (this: { config?: { serviceId?: string } }, command: any, ...rest: any[]) {
    const service = this.config?.serviceId;
    const result = send.call(this, command, ...rest);
    if ((service === 'SQS' || service === 'S3') && result && typeof result.then === 'function') {
      const call: SdkCall = {
        service: service === 'SQS' ? 'sqs' : 's3',
        op: String(command.constructor?.name ?? '').replace(/Command$/, ''),
        input: command.input ?? {},
        ...attribution('runner'),
      };
      recording.calls.push(call);
      result.then(
        (output: Record<string, unknown>) => {
          call.output = output;
          // A long poll belongs to the phase in which it returned what it returned.
          if (call.op === 'ReceiveMessage') call.phase = recording.phase;
          const idle = call.op === 'ReceiveMessage' && !(output.Messages as unknown[] | undefined)?.length;
          if (!idle && !background.has(call.fn) && call.fn !== PROBE) recording.lastCallAt = now();
        },
        (error: Error) => {
          call.error = error.name;
        },
      );
    }
    return result;
  };

  return Object.assign(recording, {
    running: () => running.size,
    probe<T>(run: () => Promise<T>): Promise<T> {
      return fnScope.run(PROBE, run);
    },
    attachDynamo(server: Server) {
      dynamoServer = server;
      // Every listener (dynalite's, and any layer the runner puts in front of it), in order, within the call's scope.
      handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
      server.removeAllListeners('request');
      wrapped = (req, res) => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const who = bySocketPort.get(req.socket.remotePort ?? -1) ?? { phase: recording.phase, fn: 'client' };
        const call: DynamoCall = {
          service: 'dynamodb',
          at: now(),
          op: target.slice(target.indexOf('.') + 1),
          writes: [],
          reads: [],
          ...who,
        };
        recording.calls.push(call);
        const busy = !background.has(call.fn) && call.fn !== PROBE;
        if (busy) recording.lastCallAt = now();
        res.once('finish', () => {
          call.status = res.statusCode;
          if (busy) recording.lastCallAt = now();
        });
        callScope.run(call, () => {
          // dynalite reads the body in `data`/`end` listeners, which the socket would run outside this call's scope.
          const on = req.on;
          req.on = function (this: IncomingMessage, event: string, listener: (...args: any[]) => void) {
            return on.call(this, event, AsyncResource.bind(listener));
          } as typeof req.on;
          for (const handler of handlers) handler.call(server, req, res);
        });
      };
      server.on('request', wrapped);
    },
    stop() {
      invocations.start.unbindStore(fnScope);
      invocations.unsubscribe(tracking as never);
      unsubscribe('http.client.request.start', onClientRequest as (m: unknown) => void);
      Object.assign(db, original);
      Client.prototype.send = send;
      if (dynamoServer && wrapped) {
        dynamoServer.removeListener('request', wrapped);
        for (const handler of handlers) dynamoServer.on('request', handler);
      }
    },
  });
}
