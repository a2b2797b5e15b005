import { keyClass } from './key-class.ts';
import type { TableSchema } from './template.ts';
import { writtenKeysByProject } from './units.ts';
import type { WorkloadRun } from './workload.ts';

/** A request type that wrote a partition key (table or index) requests of another project wrote too. */
export interface SharedKey {
  requestType: string;
  controlPlane: boolean;
  /** `table PROJECTS`, `gsi1 OUTBOX`: target and partition key value. */
  keys: string[];
  /**
   * Shards of a key spread over a fixed number of partitions (`gsi3 OUTBOX#<shard>`, by class): every tenant's load
   * shares the pool by design, and two tenants meet on a shard by chance; the scenarios check the pool's size.
   */
  sharded: string[];
}

/**
 * Partition keys of the table or an index that the requests of one type wrote for both projects of the workload: a
 * key every tenant writes is one partition's throughput shared by all of them.
 */
export function sharedKeys(schema: TableSchema, run: WorkloadRun, background: ReadonlySet<string>): SharedKey[] {
  const controlPlane = new Set(run.phases.filter((p) => p.controlPlane).map((p) => p.requestType));
  const out: SharedKey[] = [];
  for (const [requestType, byProject] of writtenKeysByProject(schema, run, background)) {
    const [a, b] = [byProject.get('A') ?? new Set<string>(), byProject.get('B') ?? new Set<string>()];
    const both = [...a].filter((k) => b.has(k)).sort();
    const classOf = (k: string) => `${k.slice(0, k.indexOf(' '))} ${keyClass(k.slice(k.indexOf(' ') + 1), run.known)}`;
    const keys = both.filter((k) => !classOf(k).includes('<shard>'));
    const sharded = [...new Set(both.map(classOf).filter((c) => c.includes('<shard>')))];
    if (both.length) out.push({ requestType, controlPlane: controlPlane.has(requestType), keys, sharded });
  }
  return out;
}
