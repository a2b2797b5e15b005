import type { RecordedUnits } from '#infra/recorded-units.ts';
import { scheduledWorkers } from '#shared/contract/workers.ts';
import { sharedKeys } from './shared-keys.ts';
import type { TableSchema } from './template.ts';
import { requestTypeUnits, shardCounts } from './units.ts';
import { runWorkload, type WorkloadOptions } from './workload.ts';

/** The sweepers run on a timer whatever the workload does: their calls are nobody's request. */
export const BACKGROUND: ReadonlySet<string> = new Set(scheduledWorkers.map((w) => w.fn));

/** Runs the workload and turns its calls into units per request type, and the keys two projects' requests shared. */
export async function recordUnits(schema: TableSchema, options: WorkloadOptions) {
  const run = await runWorkload(schema, options);
  const units: RecordedUnits = {
    command: 'npx tsx bench/capacity.ts --write',
    recordedAt: new Date().toISOString(),
    table: schema,
    perType: options.perType,
    requestTypes: requestTypeUnits(schema, run, BACKGROUND),
    shards: shardCounts(schema, run),
  };
  return { units, shared: sharedKeys(schema, run, BACKGROUND), run };
}
