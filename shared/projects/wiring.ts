import type { TokenStore } from '../auth/index.ts';
import type { CreditLedger } from '../credits/index.ts';
import type { HttpEvent } from '../http/types.ts';
import type { Platform } from '../kernel/platform.ts';
import { type TenantLimiter, wireTenantLimiter } from '../ratelimit/index.ts';
import { DynamoProjectStore } from './adapters/dynamo-project-store.ts';
import { projectHandlers } from './api/admin-routes.ts';
import { makeProjectUseCases } from './manage-projects.ts';

/**
 * The projects' management API on the deployment's table: the use cases and what serves `projectRoutes`. What
 * projects need of other areas comes in: where the API token's grant is written (auth), the bot credit ledger
 * (credits), and the one project a caller acts on (tenancy: undefined for the operator).
 */
export function wireProjectAdmin(
  platform: Pick<Platform, 'table'>,
  deps: {
    tokens: TokenStore;
    credits: CreditLedger;
    ownProjectOf: (event: HttpEvent) => string | undefined;
    /** The function's store, when it reads projects ahead for its requests (the management function's). */
    store?: DynamoProjectStore;
  },
) {
  const projects = makeProjectUseCases({
    projects: deps.store ?? new DynamoProjectStore(platform.table),
    tokens: deps.tokens,
    credits: deps.credits,
  });
  return { projects, handlers: projectHandlers(projects, deps.ownProjectOf) };
}

/** A project's own limits on its sends and reported events (its `limits`), read from the project on the table. */
export function wireProjectLimiter(platform: Pick<Platform, 'table'>): TenantLimiter {
  const projects = new DynamoProjectStore(platform.table);
  return wireTenantLimiter(platform, {
    limitsOf: async (projectId) => {
      const project = await projects.get(projectId);
      return project ? (project.limits ?? {}) : undefined;
    },
  });
}
