import { generateToken } from '../auth/index.ts';
import type { WebhookEventType } from '../events/index.ts';
import { newId } from '../kernel/ids.ts';
import { hashToken } from '../kernel/tokens.ts';
import { externalIdOf, requireProject, type Project } from '../projects/index.ts';
import type { WebhookFilter } from '../contract/webhook-filter.ts';
import { checkWebhookDestination, checkWebhookUrl } from './check-destination.ts';
import type { WebhookDestination } from './destination.ts';
import { claimGeneralSlot } from './general-slot.ts';
import { requireChannel, type UseCaseDeps } from './integration-access.ts';
import type {
  CustomIntegration,
  Integration,
  SignatureScheme,
  WebhookIntegration,
  WebhookOrdering,
  WebhookScope,
} from './integration.ts';
import { createPoller, type PollerInput } from './manage-pollers.ts';
import { generateSigningKey, generateSigningSecret } from './signing-keys.ts';

export type CreateIntegrationInput =
  | WebhookInput
  | { product: 'custom'; channelId: string }
  | ({ product: 'poller' } & PollerInput);

interface WebhookInput {
  product: 'webhook';
  scope: WebhookScope;
  channelId?: string;
  /** Required for an `http` destination (the default); none for the others. */
  url?: string;
  destination?: WebhookDestination;
  bearerToken?: string;
  eventTypes?: WebhookEventType[];
  rateLimitPerSecond?: number | null;
  ordering?: WebhookOrdering;
  signature?: SignatureScheme;
  filter?: WebhookFilter | null;
}

type Deps = UseCaseDeps<'integrations' | 'channels' | 'projects' | 'tokens' | 'allowPrivateDestinations'>;

/** Creates an integration; returns it with the secret shown this once (signing secret or custom token). */
export function makeCreateIntegration(deps: Deps) {
  return async (
    projectId: string,
    input: CreateIntegrationInput,
  ): Promise<{ integration: Integration; signingSecret?: string; token?: string }> => {
    const project = await requireProject(deps.projects, projectId);
    const at = deps.now().toISOString();
    if (input.product === 'poller')
      return createPoller({ integrations: deps.integrations, tokens: deps.tokens }, projectId, input, at);
    if (input.product === 'custom') return createCustom(deps, projectId, input.channelId, at);
    return createWebhook(deps, project, input, at);
  };
}

/** A custom integration: a token bound to one channel, shown once. */
async function createCustom(
  deps: Deps,
  projectId: string,
  channelId: string,
  at: string,
): Promise<{ integration: CustomIntegration; token: string }> {
  await requireChannel(deps.channels, projectId, channelId);
  const token = generateToken('custom');
  const integrationId = newId('int');
  const integration: CustomIntegration = {
    product: 'custom',
    integrationId,
    projectId,
    scope: 'channel',
    channelId,
    tokenHash: hashToken(token),
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  // The integration first, then the grant: a crash in between leaves an integration whose token never
  // worked (rotate it), never a working token without an integration.
  await deps.integrations.create(integration);
  await deps.tokens.put(integration.tokenHash, { kind: 'custom', projectId, integrationId, channelId });
  return { integration, token };
}

/**
 * A webhook: its URL (https unless private destinations are allowed) or a destination in the customer's AWS account,
 * a signing secret shown once (`v1`) or a key pair whose public key it shows (`v1a`); at most one enabled general
 * webhook per project (409 CONFLICT).
 */
async function createWebhook(
  deps: Deps,
  project: Project,
  input: WebhookInput,
  at: string,
): Promise<{ integration: WebhookIntegration; signingSecret?: string }> {
  const { projectId } = project;
  const store = deps.integrations;
  const integrationId = newId('int');
  if (input.scope === 'channel') await requireChannel(deps.channels, projectId, input.channelId!);
  const destination = input.destination ?? { type: 'http' };
  if (destination.type === 'http') checkWebhookUrl(input.url ?? '', deps.allowPrivateDestinations);
  else checkWebhookDestination(destination, deps.allowPrivateDestinations);
  const signature = input.signature ?? 'v1';
  // A v1a webhook also holds an HMAC secret (never shown, never signing): the record always has one, and a switch
  // to v1 replaces it with a fresh one shown by that PATCH.
  const signingSecret = generateSigningSecret();
  const integration: WebhookIntegration = {
    product: 'webhook',
    integrationId,
    projectId,
    scope: input.scope,
    channelId: input.scope === 'channel' ? input.channelId! : null,
    url: destination.type === 'http' ? (input.url ?? '') : '',
    ...(destination.type === 'http' ? {} : { destination, externalId: externalIdOf(project) }),
    bearerToken: input.bearerToken ?? null,
    eventTypes: input.eventTypes ?? null,
    rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    ordering: input.ordering ?? 'none',
    signature,
    filter: input.filter ?? null,
    enabled: true,
    disabledReason: null,
    signingSecret,
    previousSigningSecret: null,
    signingKey: signature === 'v1a' ? generateSigningKey() : null,
    previousSigningKey: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  if (integration.scope === 'general') await claimGeneralSlot(store, deps.now, projectId, integrationId);
  try {
    await store.create(integration);
  } catch (error) {
    if (integration.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
    throw error;
  }
  // A v1a webhook's receivers need only its public key, on the integration itself.
  return signature === 'v1' ? { integration, signingSecret } : { integration };
}
