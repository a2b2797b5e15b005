import type { TableSchema } from './template.ts';
import { writtenKeysByProject } from './units.ts';
import type { WorkloadRun } from './workload.ts';

/** A request type that wrote a partition key (table or index) requests of another project wrote too. */
export interface SharedKey {
  requestType: string;
  controlPlane: boolean;
  /** `table PROJECTS`, `gsi1 OUTBOX`: target and partition key value. */
  keys: string[];
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
    const keys = [...a].filter((k) => b.has(k)).sort();
    if (keys.length) out.push({ requestType, controlPlane: controlPlane.has(requestType), keys });
  }
  return out;
}
