import type { TokenStore } from '../auth/index.ts';
import { ConflictError, NotFoundError } from '../kernel/domain-error.ts';
import type { ChannelStore } from '../messaging/index.ts';
import { ChannelNotFoundError } from '../messaging/index.ts';
import { requireProject, type Project } from '../projects/index.ts';
import type { Integration, IntegrationStore } from './integration.ts';

/** What the integrations' use cases stand on: their store, and what they need of channels, projects and auth. */
export interface IntegrationDeps {
  integrations: IntegrationStore;
  channels: Pick<ChannelStore, 'get'>;
  projects: { get(projectId: string): Promise<Project | undefined> };
  tokens: TokenStore;
  /** Whether webhook URLs may be plain `http://` (local runs); on AWS only `https://`. */
  allowPrivateDestinations: boolean;
  now?: () => Date;
}

/** The ports one use case takes, with the clock resolved once by `makeIntegrationUseCases`. */
export type UseCaseDeps<K extends keyof IntegrationDeps> = Pick<IntegrationDeps, K> & { now: () => Date };

/** The project's integration, or 404 (the project's own 404 first, so an unknown project is never hidden). */
export async function requireIntegration(
  deps: Pick<IntegrationDeps, 'integrations' | 'projects'>,
  projectId: string,
  integrationId: string,
): Promise<Integration> {
  await requireProject(deps.projects, projectId);
  const integration = await deps.integrations.get(projectId, integrationId);
  if (!integration) throw new NotFoundError('integration', `Integration ${integrationId} does not exist.`);
  return integration;
}

/** 404 `CHANNEL_NOT_FOUND` unless the project has the channel an integration names. */
export async function requireChannel(
  channels: Pick<ChannelStore, 'get'>,
  projectId: string,
  channelId: string,
): Promise<void> {
  if (!(await channels.get(projectId, channelId))) throw new ChannelNotFoundError(channelId);
}

/** Writes the next version of an integration, or 409 when another request wrote it since it was read. */
export async function saveOr409(store: IntegrationStore, integration: Integration): Promise<void> {
  if (!(await store.update(integration)))
    throw new ConflictError('The integration was changed by another request at the same time; try again.');
}
