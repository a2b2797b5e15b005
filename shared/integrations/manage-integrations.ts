import type { Page, PageRequest } from '../kernel/page.ts';
import { requireProject } from '../projects/index.ts';
import { makeCreateIntegration } from './create-integration.ts';
import { type IntegrationDeps, requireIntegration } from './integration-access.ts';
import type { Integration } from './integration.ts';
import { makePatchIntegration } from './patch-integration.ts';
import { makeRemoveIntegration } from './remove-integration.ts';
import { makeRotateSecret } from './rotate-secret.ts';
import { makeRotateToken } from './rotate-token.ts';

/**
 * Integrations of a project, for its three products, one use case per file:
 * - webhook: URL or AWS destination, optional bearer token (write-only), event filter, signing secret shown once and
 *   rotatable (the previous one keeps signing for 24 h); at most one enabled general webhook per project (409);
 * - custom: a token bound to one channel, shown once, rotatable (the old token fails on the very next request);
 * - poller: a token for the events poll, with its own event types and filter.
 */
export function makeIntegrationUseCases(input: IntegrationDeps) {
  const deps = { ...input, now: input.now ?? (() => new Date()) };
  return {
    /** A page of the project's integrations. */
    async list(projectId: string, page: PageRequest): Promise<Page<Integration>> {
      await requireProject(deps.projects, projectId);
      return deps.integrations.list(projectId, page);
    },
    get: (projectId: string, integrationId: string) => requireIntegration(deps, projectId, integrationId),
    create: makeCreateIntegration(deps),
    patch: makePatchIntegration(deps),
    remove: makeRemoveIntegration(deps),
    rotateToken: makeRotateToken(deps),
    rotateSecret: makeRotateSecret(deps),
  };
}

export type IntegrationUseCases = ReturnType<typeof makeIntegrationUseCases>;
