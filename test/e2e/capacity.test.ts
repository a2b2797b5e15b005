import { beforeAll, describe, expect, it } from 'vitest';
import { type RecordedUnits, recordedUnits, unitsOf } from '#infra/recorded-units.ts';
import { recordUnits } from '../../bench/capacity/record.ts';
import type { SharedKey } from '../../bench/capacity/shared-keys.ts';
import { synthesizeTable, tableSchema, type TableSchema } from '../../bench/capacity/template.ts';

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
  recorded = await recordUnits(schema, { perType: 1 });
}, 180_000);

describe('no key that tenants share', () => {
  it('no request type writes a table or index partition key that requests of another project write too', () => {
    const shared = recorded.shared.filter((s) => !CONTROL_PLANE_SHARED.includes(s.requestType));
    expect(shared.map((s) => `${s.requestType}: ${s.keys.join(', ')}`)).toEqual([]);
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
    const total = (u: RecordedUnits, f: (t: ReturnType<typeof unitsOf>) => number) => f(unitsOf(u, 'send'));
    const measures = {
      wcu: (t: ReturnType<typeof unitsOf>) => t.dynamo.reduce((n, d) => n + d.wcu, 0),
      rcu: (t: ReturnType<typeof unitsOf>) => t.dynamo.reduce((n, d) => n + d.rcu, 0),
      sqs: (t: ReturnType<typeof unitsOf>) => t.sqs.reduce((n, d) => n + d.requests, 0),
    };
    for (const [name, f] of Object.entries(measures)) {
      const now = total(recorded.units, f);
      const file = total(committed, f);
      expect(Math.abs(now - file), `${name}: ${now} on the wire, ${file} in the file`).toBeLessThanOrEqual(
        0.1 * Math.max(now, file),
      );
    }
  });
});
