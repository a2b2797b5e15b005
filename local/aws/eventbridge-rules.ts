import type { DatabaseSync } from 'node:sqlite';
import {
  InvalidEventPatternError,
  matchesEventPattern,
  parseEventPattern,
  type EventPattern,
} from './event-pattern.ts';
import type { Delivery } from './outbox.ts';
import { arnResource, AwsError, LOCAL_ACCOUNT, optionalString, requiredString } from './wire.ts';

interface Target {
  Id: string;
  Arn: string;
  Input?: string;
  InputPath?: string;
  SqsParameters?: { MessageGroupId?: string };
}

interface RuleRow {
  bus: string;
  name: string;
  pattern: string | null;
  state: string;
  description: string | null;
}

/** A rule's or target's refusal for what the stand-in cannot deliver, named in the answer rather than dropped later. */
const DELIVERABLE = /^arn:aws[a-z-]*:(sqs|sns|events):/;

/**
 * EventBridge's rules and targets (see ./eventbridge.ts): PutRule / DescribeRule / ListRules / DeleteRule /
 * EnableRule / DisableRule, PutTargets / ListTargetsByRule / RemoveTargets, and the deliveries an event causes.
 */
export function createEventBridgeRules({
  db,
  region,
  bus,
}: {
  db: DatabaseSync;
  region: string;
  /** The name of an existing bus (by name or ARN), or ResourceNotFoundException. */
  bus: (nameOrArn: string | undefined) => string;
}) {
  db.exec(`CREATE TABLE IF NOT EXISTS eb_rules (bus TEXT NOT NULL, name TEXT NOT NULL, pattern TEXT, state TEXT NOT NULL,
      description TEXT, PRIMARY KEY (bus, name));
    CREATE TABLE IF NOT EXISTS eb_targets (bus TEXT NOT NULL, rule TEXT NOT NULL, id TEXT NOT NULL, target TEXT NOT NULL,
      PRIMARY KEY (bus, rule, id));`);
  const ruleArn = (busName: string, name: string) =>
    `arn:aws:events:${region}:${LOCAL_ACCOUNT}:rule/${busName === 'default' ? '' : `${busName}/`}${name}`;
  const findRule = db.prepare('SELECT * FROM eb_rules WHERE bus = ? AND name = ?');
  const targetsOf = db.prepare('SELECT target FROM eb_targets WHERE bus = ? AND rule = ? ORDER BY id');
  const enabledRules = db.prepare("SELECT * FROM eb_rules WHERE bus = ? AND state = 'ENABLED' AND pattern IS NOT NULL");
  const patterns = new Map<string, EventPattern>();

  function rule(input: Record<string, unknown>, member = 'Name'): RuleRow {
    const busName = bus(optionalString(input, 'EventBusName'));
    const name = requiredString(input, member);
    const row = findRule.get(busName, name) as RuleRow | undefined;
    if (!row)
      throw new AwsError(400, 'ResourceNotFoundException', `Rule ${name} does not exist on EventBus ${busName}.`);
    return row;
  }
  const describe = (row: RuleRow) => ({
    Name: row.name,
    Arn: ruleArn(row.bus, row.name),
    ...(row.pattern ? { EventPattern: row.pattern } : {}),
    State: row.state,
    ...(row.description ? { Description: row.description } : {}),
    EventBusName: row.bus,
    CreatedBy: LOCAL_ACCOUNT,
  });
  const setState = (state: string) => (input: Record<string, unknown>) => {
    const row = rule(input);
    db.prepare('UPDATE eb_rules SET state = ? WHERE bus = ? AND name = ?').run(state, row.bus, row.name);
    return {};
  };

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    PutRule(input) {
      const busName = bus(optionalString(input, 'EventBusName'));
      const name = requiredString(input, 'Name');
      if (!/^[.\-_A-Za-z0-9]{1,64}$/.test(name))
        throw new AwsError(400, 'ValidationException', `Rule name ${name} is not valid.`);
      if (input.ScheduleExpression !== undefined)
        throw new AwsError(400, 'ValidationException', 'The local stand-in runs no scheduled rules.');
      const pattern = requiredString(input, 'EventPattern');
      parsePattern(pattern);
      const state = optionalString(input, 'State') ?? 'ENABLED';
      if (state !== 'ENABLED' && state !== 'DISABLED')
        throw new AwsError(400, 'ValidationException', `State ${state} is not valid.`);
      db.prepare(
        `INSERT INTO eb_rules (bus, name, pattern, state, description) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (bus, name) DO UPDATE SET pattern = excluded.pattern, state = excluded.state, description = excluded.description`,
      ).run(busName, name, pattern, state, optionalString(input, 'Description') ?? null);
      return { RuleArn: ruleArn(busName, name) };
    },
    DescribeRule: (input) => describe(rule(input)),
    ListRules(input) {
      const busName = bus(optionalString(input, 'EventBusName'));
      const prefix = optionalString(input, 'NamePrefix') ?? '';
      const rows = db
        .prepare('SELECT * FROM eb_rules WHERE bus = ? ORDER BY name')
        .all(busName) as unknown as RuleRow[];
      return { Rules: rows.filter((r) => r.name.startsWith(prefix)).map(describe) };
    },
    DeleteRule(input) {
      const row = rule(input);
      if (targetsOf.all(row.bus, row.name).length)
        throw new AwsError(400, 'ValidationException', "Rule can't be deleted since it has targets.");
      db.prepare('DELETE FROM eb_rules WHERE bus = ? AND name = ?').run(row.bus, row.name);
      return {};
    },
    EnableRule: setState('ENABLED'),
    DisableRule: setState('DISABLED'),
    PutTargets(input) {
      const row = rule(input, 'Rule');
      const targets = input.Targets;
      if (!Array.isArray(targets) || targets.length < 1 || targets.length > 10)
        throw new AwsError(400, 'ValidationException', 'Targets must have length between 1 and 10.');
      const failed: { TargetId: string; ErrorCode: string; ErrorMessage: string }[] = [];
      const upsert = db.prepare(
        'INSERT INTO eb_targets (bus, rule, id, target) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET target = excluded.target',
      );
      for (const target of targets as Target[]) {
        const refusal =
          !target?.Id || !target.Arn
            ? 'A target needs an Id and an Arn.'
            : !DELIVERABLE.test(target.Arn)
              ? 'The local stand-in delivers to SQS queues, SNS topics and event buses only.'
              : 'InputTransformer' in target
                ? 'The local stand-in does not apply input transformers.'
                : undefined;
        if (refusal)
          failed.push({ TargetId: String(target?.Id), ErrorCode: 'ValidationException', ErrorMessage: refusal });
        else upsert.run(row.bus, row.name, target.Id, JSON.stringify(target));
      }
      return { FailedEntryCount: failed.length, FailedEntries: failed };
    },
    ListTargetsByRule(input) {
      const row = rule(input, 'Rule');
      return { Targets: (targetsOf.all(row.bus, row.name) as { target: string }[]).map((t) => JSON.parse(t.target)) };
    },
    RemoveTargets(input) {
      const row = rule(input, 'Rule');
      const remove = db.prepare('DELETE FROM eb_targets WHERE bus = ? AND rule = ? AND id = ?');
      for (const id of (input.Ids as string[] | undefined) ?? []) remove.run(row.bus, row.name, id);
      return { FailedEntryCount: 0, FailedEntries: [] };
    },
  };

  /** The deliveries `event` causes on `busName`: one per target of each enabled rule it matches. */
  function deliveriesFor(busName: string, event: Record<string, unknown> & { id: string }): Delivery[] {
    const deliveries: Delivery[] = [];
    for (const row of enabledRules.all(busName) as unknown as RuleRow[]) {
      const key = `${row.bus}/${row.name}/${row.pattern}`;
      const pattern = patterns.get(key) ?? parsePattern(row.pattern!);
      patterns.set(key, pattern);
      if (!matchesEventPattern(pattern, event)) continue;
      for (const { target } of targetsOf.all(row.bus, row.name) as { target: string }[])
        deliveries.push(deliveryTo(JSON.parse(target) as Target, event));
    }
    return deliveries;
  }

  return {
    operations,
    deliveriesFor,
    deleteAllOn(busName: string) {
      db.prepare('DELETE FROM eb_targets WHERE bus = ?').run(busName);
      db.prepare('DELETE FROM eb_rules WHERE bus = ?').run(busName);
    },
  };
}

/** What a target receives: the event (or its `Input` / `InputPath`), as AWS sends it to that kind of target. */
function deliveryTo(target: Target, event: Record<string, unknown> & { id: string }): Delivery {
  const payload = target.Input ?? JSON.stringify(target.InputPath ? pick(event, target.InputPath) : event);
  const service = target.Arn.split(':')[2];
  if (service === 'sns') return { kind: 'sns', topicArn: target.Arn, message: payload };
  if (service === 'events')
    return {
      kind: 'events',
      busArn: target.Arn,
      source: event.source as string,
      detailType: event['detail-type'] as string,
      detail: JSON.stringify(event.detail),
      resources: event.resources as string[],
    };
  const fifo = arnResource(target.Arn, 'sqs')?.endsWith('.fifo');
  return {
    kind: 'sqs',
    queueArn: target.Arn,
    body: payload,
    ...(fifo ? { messageGroupId: target.SqsParameters?.MessageGroupId ?? 'default', deduplicationId: event.id } : {}),
  };
}

/** `$.detail.order` of the event (the JSONPath subset targets use). */
function pick(event: Record<string, unknown>, path: string): unknown {
  let value: unknown = event;
  for (const key of path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean))
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value ?? null;
}

/** A pattern's JSON, or the `InvalidEventPatternException` AWS answers. */
export function parsePattern(text: string): EventPattern {
  try {
    return parseEventPattern(text);
  } catch (error) {
    if (error instanceof InvalidEventPatternError)
      throw new AwsError(400, 'InvalidEventPatternException', error.message);
    throw error;
  }
}
