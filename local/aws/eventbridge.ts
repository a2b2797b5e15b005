import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';
import { createEventBridgeRules, parsePattern } from './eventbridge-rules.ts';
import { matchesEventPattern } from './event-pattern.ts';
import type { Outbox } from './outbox.ts';
import {
  arnResource,
  AwsError,
  jsonBody,
  LOCAL_ACCOUNT,
  optionalString,
  requiredString,
  targetOperation,
  type AwsRequest,
  type StandInService,
} from './wire.ts';

/** What a bus keeps for a test to read (`GET /_local/received`): its latest events. */
const RECEIVED_KEPT_PER_BUS = 1000;
/** PutEvents takes at most 10 entries and 256 KB in one call. */
const MAX_ENTRIES = 10;
const MAX_ENTRIES_BYTES = 256 * 1024;

export interface EventBridgeOptions {
  db: DatabaseSync;
  outbox: Outbox;
  region: string;
}

/**
 * EventBridge's stand-in (AWS JSON 1.1): event buses (the `default` one always there), `PutEvents` (a bus by name or
 * ARN), rules with event patterns (./event-pattern.ts) and their targets: SQS queues (with `SqsParameters` for FIFO
 * ones), SNS topics and other buses, each sent the event as AWS sends it (or the target's `Input` / `InputPath`)
 * through the outbox (./outbox.ts). Buses, rules and targets persist; each bus keeps its latest
 * {@link RECEIVED_KEPT_PER_BUS} events for `GET /_local/received?eventBusName=`.
 */
export function createEventBridge({ db, outbox, region }: EventBridgeOptions): StandInService {
  db.exec(`CREATE TABLE IF NOT EXISTS eb_buses (name TEXT PRIMARY KEY, description TEXT, created_at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS eb_received (seq INTEGER PRIMARY KEY AUTOINCREMENT, bus TEXT NOT NULL, event TEXT NOT NULL,
      caller TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS eb_received_bus ON eb_received (bus, seq);
    INSERT OR IGNORE INTO eb_buses (name, created_at) VALUES ('default', ${Date.now()});`);
  const busArn = (name: string) => `arn:aws:events:${region}:${LOCAL_ACCOUNT}:event-bus/${name}`;
  const findBus = db.prepare('SELECT name, description, created_at FROM eb_buses WHERE name = ?');
  const receive = db.prepare('INSERT INTO eb_received (bus, event, caller, at) VALUES (?, ?, ?, ?)');
  const trim = db.prepare(
    `DELETE FROM eb_received WHERE bus = ? AND seq <= (SELECT seq FROM eb_received WHERE bus = ? ORDER BY seq DESC LIMIT 1 OFFSET ${RECEIVED_KEPT_PER_BUS})`,
  );

  /** A bus by name or ARN (whatever account the ARN names: the stand-in is one account). */
  function busName(nameOrArn: string | undefined): string {
    if (!nameOrArn) return 'default';
    return nameOrArn.startsWith('arn:') ? (arnResource(nameOrArn, 'events', 'event-bus') ?? nameOrArn) : nameOrArn;
  }
  function bus(nameOrArn: string | undefined) {
    const name = busName(nameOrArn);
    const row = findBus.get(name) as { name: string; description: string | null; created_at: number } | undefined;
    if (!row) throw new AwsError(400, 'ResourceNotFoundException', `Event bus ${name} does not exist.`);
    return row;
  }
  const rules = createEventBridgeRules({ db, region, bus: (n) => bus(n).name });

  function putEvents(input: Record<string, unknown>, caller: string) {
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length < 1 || entries.length > MAX_ENTRIES)
      throw new AwsError(
        400,
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
      );
    if (Buffer.byteLength(JSON.stringify(entries)) > MAX_ENTRIES_BYTES)
      throw new AwsError(400, 'ValidationException', 'Total size of the entries in the request is over the limit.');
    const results = transaction(db, () =>
      entries.map((entry: Record<string, unknown>) => {
        const event = toEvent(entry, caller);
        if ('ErrorCode' in event) return event;
        const name = busName(entry.EventBusName as string | undefined);
        if (!findBus.get(name))
          return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${name} does not exist.` };
        receive.run(name, JSON.stringify(event), caller, Date.now());
        trim.run(name, name);
        for (const delivery of rules.deliveriesFor(name, event)) outbox.add(delivery);
        return { EventId: event.id };
      }),
    );
    return { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results };
  }

  function toEvent(entry: Record<string, unknown>, caller: string) {
    const missing = (['Source', 'DetailType', 'Detail'] as const).find(
      (m) => typeof entry[m] !== 'string' || !entry[m],
    );
    if (missing)
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${missing} is not valid. Reason: ${missing} is a required argument.`,
      };
    const source = entry.Source as string;
    if (source.startsWith('aws.') && !caller.endsWith('.amazonaws.com'))
      return { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'Not authorized for the source.' };
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail as string);
    } catch {}
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const time = typeof entry.Time === 'number' ? new Date(entry.Time * 1000) : new Date();
    return {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType as string,
      source,
      account: LOCAL_ACCOUNT,
      time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region,
      resources: Array.isArray(entry.Resources) ? (entry.Resources as string[]) : [],
      detail,
    };
  }

  function describeBus(input: Record<string, unknown>) {
    const row = bus(optionalString(input, 'Name'));
    return {
      Name: row.name,
      Arn: busArn(row.name),
      ...(row.description ? { Description: row.description } : {}),
      CreationTime: row.created_at / 1000,
      LastModifiedTime: row.created_at / 1000,
    };
  }

  const operations: Record<string, (input: Record<string, unknown>, caller: string) => unknown> = {
    PutEvents: putEvents,
    CreateEventBus(input) {
      const name = requiredString(input, 'Name');
      if (!/^[/.\-_A-Za-z0-9]{1,256}$/.test(name) || name === 'default' || name.startsWith('aws.'))
        throw new AwsError(400, 'ValidationException', `Event bus name ${name} is not valid.`);
      if (findBus.get(name))
        throw new AwsError(400, 'ResourceAlreadyExistsException', `Event bus ${name} already exists.`);
      db.prepare('INSERT INTO eb_buses (name, description, created_at) VALUES (?, ?, ?)').run(
        name,
        optionalString(input, 'Description') ?? null,
        Date.now(),
      );
      return { EventBusArn: busArn(name) };
    },
    DescribeEventBus: describeBus,
    ListEventBuses(input) {
      const prefix = optionalString(input, 'NamePrefix') ?? '';
      const rows = db.prepare('SELECT name FROM eb_buses ORDER BY name').all() as { name: string }[];
      return {
        EventBuses: rows
          .filter((r) => r.name.startsWith(prefix))
          .slice(0, Number(input.Limit ?? 100))
          .map((r) => describeBus({ Name: r.name })),
      };
    },
    DeleteEventBus(input) {
      const name = busName(requiredString(input, 'Name'));
      if (name === 'default') throw new AwsError(400, 'ValidationException', 'Cannot delete event bus default.');
      transaction(db, () => {
        rules.deleteAllOn(name);
        db.prepare('DELETE FROM eb_buses WHERE name = ?').run(name);
        db.prepare('DELETE FROM eb_received WHERE bus = ?').run(name);
      });
      return {};
    },
    TestEventPattern(input) {
      const pattern = parsePattern(requiredString(input, 'EventPattern'));
      let event: unknown;
      try {
        event = JSON.parse(requiredString(input, 'Event'));
      } catch {
        throw new AwsError(400, 'InvalidEventPatternException', 'Event is not valid JSON.');
      }
      return { Result: matchesEventPattern(pattern, event as Record<string, unknown>) };
    },
    ...rules.operations,
  };

  return {
    handle(request: AwsRequest) {
      const operation = operations[targetOperation(request, 'AWSEvents')];
      if (!operation)
        throw new AwsError(400, 'UnknownOperationException', 'The stand-in does not serve this operation.');
      return { json: operation(jsonBody(request), request.accessKeyId) };
    },
    inspect(path, query) {
      if (path !== 'received') return undefined;
      const name = busName(query.get('eventBusName') ?? undefined);
      const rows = db.prepare('SELECT event, caller, at FROM eb_received WHERE bus = ? ORDER BY seq').all(name) as {
        event: string;
        caller: string;
        at: number;
      }[];
      return {
        events: rows.map((r) => ({
          event: JSON.parse(r.event) as unknown,
          callerAccessKeyId: r.caller,
          receivedAt: new Date(r.at).toISOString(),
        })),
      };
    },
  };
}
