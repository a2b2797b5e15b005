import { beforeAll, describe, expect, it } from 'vitest';
import { type RecordedUnits, type RequestTypeUnits, recordedUnits, unitsOf } from '#infra/recorded-units.ts';
import { recordUnits } from '../../bench/capacity/record.ts';
import type { SharedKey } from '../../bench/capacity/shared-keys.ts';
import { scenarios } from '#infra/capacity-target.ts';
import { scenarioLoad } from '../../bench/capacity/load.ts';
import { contractCaps, synthesizeTable, tableSchema, type TableSchema } from '../../bench/capacity/template.ts';

/**
 * The capacity model on a small workload (bench/capacity.ts runs the same at scale): a service of its own on one
 * event loop, every DynamoDB, SQS and S3 call recorded with the function that made it.
 */

/**
 * The only writes two tenants may share: management calls, rare by nature. A project is listed under one index key
 * (the operator's project listing), and its token's creation rewrites the project item that listing projects.
 */
const CONTROL_PLANE_SHARED = ['create project', 'create API token'];

let schema: TableSchema;
let committed: RecordedUnits;
let recorded: { units: RecordedUnits; shared: SharedKey[] };
beforeAll(async () => {
  schema = tableSchema(await synthesizeTable());
  committed = recordedUnits();
  // One request of each type, but as many sends as the recording made: they race for the send limiters together.
  recorded = await recordUnits(schema, { perType: 1, sends: committed.perType });
  // A scheduled send leaves a minute after it is accepted at the soonest: the two projects' wait out one minute.
}, 480_000);

describe('no key that tenants share', () => {
  it('no request type writes a table or index partition key that requests of another project write too', () => {
    // A type whose only common keys are shards of a pool (two projects' sends hashed to one of 64 outbox shards, by
    // chance a third of the time) shares no key: the next test checks the pools.
    const shared = recorded.shared.filter((s) => !CONTROL_PLANE_SHARED.includes(s.requestType) && s.keys.length > 0);
    expect(shared.map((s) => `${s.requestType}: ${s.keys.join(', ')}`)).toEqual([]);
  });

  it("keys sharded over a fixed pool of partitions (which tenants meet on by chance) stay under half their limit at S1's 10,000 events a second", () => {
    const sharded = new Set(recorded.shared.flatMap((s) => s.sharded));
    const s1 = scenarioLoad(committed, scenarios.find((s) => s.id === 'S1')!, contractCaps());
    for (const cls of sharded) {
      const row = s1.rows.find((r) => r.kind === 'partition' && r.name === cls);
      expect(committed.shards[cls], `${cls}: its shards in the recording`).toBeGreaterThan(1);
      expect(row?.share ?? 0, `${cls} at S1: ${row?.detail}`).toBeLessThanOrEqual(0.5);
    }
  });

  it('the exceptions are management calls', () => {
    for (const s of recorded.shared.filter((s) => CONTROL_PLANE_SHARED.includes(s.requestType)))
      expect(s.controlPlane, s.requestType).toBe(true);
  });
});

describe('infra/recorded-units.json (what the cost model and the deployment plan read)', () => {
  it('was recorded against the table the template defines now', () => {
    expect(committed.table).toEqual(schema);
  });

  it('holds every request type the workload makes', () => {
    expect(committed.requestTypes.map((t) => t.name).sort()).toEqual(
      recorded.units.requestTypes.map((t) => t.name).sort(),
    );
  });

  it("a send's recorded units are within 10 % of what it costs on the wire now", () => {
    const measures = {
      'DynamoDB units (table and indexes, read and write)': (t: RequestTypeUnits) =>
        t.dynamo.reduce((n, d) => n + d.wcu + d.rcu, 0),
      'SQS requests': (t: RequestTypeUnits) => t.sqs.reduce((n, d) => n + d.requests, 0),
    };
    for (const [name, measure] of Object.entries(measures)) {
      const now = measure(unitsOf(recorded.units, 'send'));
      const file = measure(unitsOf(committed, 'send'));
      expect(Math.abs(now - file), `${name}: ${now} on the wire, ${file} in the file`).toBeLessThanOrEqual(
        0.1 * Math.max(now, file),
      );
    }
  });
});
