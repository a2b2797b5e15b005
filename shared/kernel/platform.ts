import type { DynamoTable } from './aws/dynamo-table.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { InvocationMetrics } from './metrics.ts';

/**
 * What every function builds once per cold start and hands each area's wiring (`shared/<area>/wiring.ts`): the
 * settings, the function's logger and the deployment's one table. An area builds its own adapters on these; what it
 * needs of another area (a store, a use case) is passed to it by the function's composition root.
 */
export interface Platform {
  /** The settings of this process (parsed once, at cold start). */
  cfg: Config;
  logger: Logger;
  table: DynamoTable;
}

/** A {@link Platform} whose function publishes metrics (every public Bots API and worker function). */
export interface MeteredPlatform extends Platform {
  metrics: InvocationMetrics;
}
