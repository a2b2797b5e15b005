import { describe, expect, it } from 'vitest';
import type { RecordedUnits } from '#infra/recorded-units.ts';
import type { Scenario } from '#infra/capacity-target.ts';
import { ceilingOf, scenarioLoad } from '../../../bench/capacity/load.ts';
import type { DeploymentCaps } from '../../../bench/capacity/template.ts';

/**
 * A rate-limit bucket in the capacity model: its items follow the least limit that admits the scenario's rate, as
 * the limiter spreads a limit (one item per 250 admitted a second), so a project sending 800 a second writes 4 items.
 */
const units: RecordedUnits = {
  command: 'test',
  recordedAt: '2026-12-02T00:00:00.000Z',
  table: {},
  perType: 1,
  shards: {},
  requestTypes: [
    {
      name: 'send',
      per: 'request',
      controlPlane: false,
      samples: 1,
      dynamo: [
        {
          target: 'table',
          keyClass: 'RL#sends#<project>',
          partitions: 1,
          wcu: 1.6,
          rcu: 0,
          writes: 1.6,
          reads: 0,
          storedBytes: 0,
          expiringByteDays: 0,
        },
        {
          target: 'table',
          keyClass: 'TOKEN#<token>',
          partitions: 1,
          wcu: 0,
          rcu: 1,
          writes: 0,
          reads: 1,
          storedBytes: 0,
          expiringByteDays: 0,
        },
      ],
      sqs: [],
      fifo: [],
      s3: [],
      functions: [],
    },
  ],
};
const caps: DeploymentCaps = { functions: [], fifoQueues: [], apiThrottles: [] };
const oneProject = (perSecond: number): Scenario => ({
  id: 'x',
  title: 'one project sending',
  assumptions: '',
  mix: [{ type: 'send', perSecond }],
  spread: { project: 1, token: 1 },
});
const row = (perSecond: number, name: string) =>
  scenarioLoad(units, oneProject(perSecond), caps).rows.find((r) => r.name === name)!;

describe("the capacity model's rate-limit buckets", () => {
  it('spread over one item per 250 a second of the rate they admit', () => {
    expect(row(100, 'table RL#sends#<project>')).toMatchObject({ partitions: 1, load: 160 });
    expect(row(800, 'table RL#sends#<project>')).toMatchObject({ partitions: 4, load: 320 });
    expect(row(800, 'table RL#sends#<project>').share).toBeCloseTo(0.32);
    // A key that is not a bucket stays one partition at any rate.
    expect(row(800, 'table TOKEN#<token>')).toMatchObject({ partitions: 1, load: 800 });
  });

  it('a bucket never binds a ceiling: the next key does', () => {
    const { rate, binding } = ceilingOf(units, oneProject(1), caps);
    expect(binding?.name).toBe('table TOKEN#<token>');
    expect(rate).toBeCloseTo(1_500);
  });
});
