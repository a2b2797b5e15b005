import type { CustomTokenLimitPorts } from '#shared/auth/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Config } from '#shared/kernel/config.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { type TenantLimiter, wireCustomTokenLimiter, wireTenantLimiter } from '#shared/ratelimit/index.ts';

/*
 * The limits' settings are the ratelimit area's own (shared/ratelimit/settings.ts); `_cfg` stays in these signatures
 * only so that the handlers calling them did not change with that move.
 */

/** A project's own limits on its sends and reported events, read from the project (its `limits`) on DynamoDB. */
export function tenantLimiterFromConfig(_cfg: Config, table: DynamoTable): TenantLimiter {
  const projects = new DynamoProjectStore(table);
  return wireTenantLimiter(
    { table },
    {
      limitsOf: async (projectId) => {
        const project = await projects.get(projectId);
        return project ? (project.limits ?? {}) : undefined;
      },
    },
  );
}

/** A custom-token function's limits: the token's own, and (`sends`) the project's sends a second. */
export function customTokenLimitsFromConfig(
  _cfg: Config,
  table: DynamoTable,
  options: { sends: boolean },
): CustomTokenLimitPorts {
  return {
    ...wireCustomTokenLimiter({ table }),
    ...(options.sends ? { sends: tenantLimiterFromConfig(_cfg, table) } : {}),
  };
}
