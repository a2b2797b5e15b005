import type { OutboxMark, WebhookEventType } from '../events/index.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
import { publicKeyOf } from './signing-keys.ts';
import type { AwsDestination, WebhookDestination } from './destination.ts';
import type { WebhookFilter } from '../contract/webhook-filter.ts';

/**
 * Integrations of a project: a webhook pushes the project's events to a customer URL; a custom
 * integration holds a token that sends messages on one channel. Both live under the project
 * (`PRJ#<projectId>` / `INT#<integrationId>`), so a project's webhooks are one Query away for the fan-out.
 */

export type WebhookScope = 'general' | 'channel';
/** `conversation` delivers the events of one conversation one after another, in order. */
export type WebhookOrdering = 'none' | 'conversation';
export const WEBHOOK_ORDERINGS: readonly WebhookOrdering[] = ['none', 'conversation'];
/** `v1` HMAC-SHA256 under a shared secret, `v1a` ed25519 (the receiver holds only a public key). */
export type SignatureScheme = 'v1' | 'v1a';
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['v1', 'v1a'];

/** The highest `rateLimitPerSecond` a webhook may ask for. */
export const MAX_WEBHOOK_RATE_PER_SECOND = 10_000;

/** How long a rotated-away signing secret or key still signs deliveries (contract: 24 h). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export interface WebhookIntegration {
  product: 'webhook';
  integrationId: string;
  projectId: string;
  scope: WebhookScope;
  /** The channel of a `channel`-scoped webhook; null for the general one. */
  channelId: string | null;
  /** The receiver's URL (`http` destinations; empty for the others). */
  url: string;
  /** Where deliveries go; absent (webhooks made before destinations existed) is `http`. */
  destination?: WebhookDestination;
  /** The project's external id, copied at create for roles assumed when delivering (it never changes). */
  externalId?: string;
  /** Sent as `Authorization: Bearer …` on deliveries; write-only over the API, stored encrypted. */
  bearerToken: string | null;
  /** Subscribed event types; null = every type. */
  eventTypes: WebhookEventType[] | null;
  /**
   * Most delivery attempts started in any one-second interval (1 to 10,000); null: no limit
   * (docs/reference/webhooks.md).
   */
  rateLimitPerSecond: number | null;
  enabled: boolean;
  /** Why it was disabled: `manual` (PATCH), `gone` (the receiver answered 410), or the fan-out's own reasons. */
  disabledReason: string | null;
  /** `none` (default) or `conversation`; webhooks stored before it existed have none. */
  ordering: WebhookOrdering;
  /** Which signatures deliveries carry: `v1` (default) or `v1a`. */
  signature: SignatureScheme;
  /** Only matching events are delivered; null: every event of the subscribed types. */
  filter: WebhookFilter | null;
  /** `whsec_…`, stored encrypted. Signs while `signature` is `v1`. */
  signingSecret: string;
  /**
   * The secret replaced by the last rotation (or by a switch to `v1a`), still signing until `expiresAt` (ISO 8601).
   */
  previousSigningSecret: { secret: string; expiresAt: string } | null;
  /** `whsk_…` ed25519 secret key, stored encrypted; signs while `signature` is `v1a`. Null until first needed. */
  signingKey: string | null;
  /** The key replaced by the last rotation (or by a switch back to `v1`), still signing until `expiresAt`. */
  previousSigningKey: { key: string; expiresAt: string } | null;
  createdAt: string;
  updatedAt: string;
  /** Optimistic-concurrency counter: every update is conditional on it. */
  version: number;
}

export interface CustomIntegration {
  product: 'custom';
  integrationId: string;
  projectId: string;
  scope: 'channel';
  channelId: string;
  /** SHA-256 of the current token; the grant in the TokenStore is keyed by it. */
  tokenHash: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/**
 * A poller: the project's events read with its own token (`GET /api/integration/events`), oldest first, through the
 * same `eventTypes` and `filter` as a webhook's.
 */
export interface PollerIntegration {
  product: 'poller';
  integrationId: string;
  projectId: string;
  scope: 'general';
  /** SHA-256 of the current `sbp_` token; the grant in the TokenStore is keyed by it. */
  tokenHash: string;
  eventTypes: WebhookEventType[] | null;
  filter: WebhookFilter | null;
  createdAt: string;
  updatedAt: string;
  version: number;
}

export type Integration = WebhookIntegration | CustomIntegration | PollerIntegration;

/**
 * A webhook as the fan-out and delivery workers need it: everything to select, sign and send, with its signing
 * secrets decrypted. `signingSecrets` holds the secrets that sign right now: the current one first, then the
 * previous one while its 24 h grace lasts.
 */
export interface WebhookTarget {
  projectId: string;
  integrationId: string;
  scope: WebhookScope;
  channelId: string | null;
  url: string;
  /** A destination in the customer's AWS account, with the external id its role is assumed with; absent: `url`. */
  aws?: { destination: AwsDestination; externalId: string };
  bearerToken: string | null;
  eventTypes: WebhookEventType[] | null;
  ordering: WebhookOrdering;
  filter: WebhookFilter | null;
  enabled: boolean;
  disabledReason: string | null;
  /** HMAC secrets that sign now (`v1` entries), current first. */
  signingSecrets: string[];
  /** Ed25519 secret keys that sign now (`v1a` entries), current first. */
  signingKeys: string[];
}

/** Integration persistence (one item per integration, plus a guard item for the project's general webhook). */
export interface IntegrationStore {
  /** Writes a new integration; fails if the id exists. */
  create(integration: Integration): Promise<void>;
  get(projectId: string, integrationId: string): Promise<Integration | undefined>;
  /** A page of the project's integrations, in id order. */
  list(projectId: string, page: PageRequest): Promise<Page<Integration>>;
  /** Replaces the integration if its stored `version` is still `integration.version - 1`. False when it changed. */
  update(integration: Integration): Promise<boolean>;
  /**
   * Deletes and returns the integration, if it existed. With `expectedVersion`, only while its stored `version` is
   * still that one (undefined otherwise: changed meanwhile, or already gone).
   */
  delete(projectId: string, integrationId: string, expectedVersion?: number): Promise<Integration | undefined>;

  /** The project's webhooks, enabled and disabled, with decrypted secrets: one Query. For the fan-out. */
  listWebhooks(projectId: string): Promise<WebhookTarget[]>;
  /** One webhook with decrypted secrets (deliveries, retries, `/test`); undefined if absent or not a webhook. */
  getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined>;
  /**
   * Disables an enabled webhook with a reason (`gone` after a 410, `failing` after 5 days of failures), writing
   * `mark` (its `webhook.disabled` event, shared/events/outbox.ts) in the same conditional write. Frees the
   * project's general-webhook slot. False when the webhook does not exist or is already disabled.
   */
  disableWebhook(projectId: string, integrationId: string, reason: string, mark?: OutboxMark): Promise<boolean>;
  /** Clears a published `webhook.disabled` mark. */
  clearDisabledMark(projectId: string, integrationId: string, eventId: string): Promise<void>;

  /** The webhook holding the project's one enabled-general-webhook slot, if any, and when it took it (epoch ms). */
  generalWebhookHolder(projectId: string): Promise<{ integrationId: string; claimedAt: number } | undefined>;
  /**
   * Takes the slot for `integrationId` if it is free, already ours, or held by `staleHolder` (a holder that no
   * longer is an enabled general webhook). False when another webhook holds it.
   */
  claimGeneralWebhook(projectId: string, integrationId: string, staleHolder?: string): Promise<boolean>;
  /** Frees the slot if `integrationId` holds it. */
  releaseGeneralWebhook(projectId: string, integrationId: string): Promise<void>;
}

type SigningMaterial = Pick<
  WebhookIntegration,
  'signature' | 'signingSecret' | 'previousSigningSecret' | 'signingKey' | 'previousSigningKey'
>;

/**
 * The HMAC secrets that sign at `now`: under `v1` the current one, then the previous one during its grace period;
 * under `v1a` only a previous one still in its grace (the 24 h after a switch from `v1`, so receivers move over
 * without a gap).
 */
export function liveSigningSecrets(webhook: SigningMaterial, now: Date): string[] {
  const live = (webhook.signature ?? 'v1') === 'v1' ? [webhook.signingSecret] : [];
  const previous = webhook.previousSigningSecret;
  if (previous && Date.parse(previous.expiresAt) > now.getTime()) live.push(previous.secret);
  return live;
}

/** The ed25519 keys that sign at `now`: the same rule as {@link liveSigningSecrets}, for `v1a`. */
export function liveSigningKeys(webhook: SigningMaterial, now: Date): string[] {
  const live = webhook.signature === 'v1a' && webhook.signingKey ? [webhook.signingKey] : [];
  const previous = webhook.previousSigningKey;
  if (previous && Date.parse(previous.expiresAt) > now.getTime()) live.push(previous.key);
  return live;
}

/** The management API's view of an integration: never a secret. */
export function integrationView(integration: Integration) {
  if (integration.product === 'poller') {
    return {
      integrationId: integration.integrationId,
      product: 'poller' as const,
      scope: 'general' as const,
      channelId: null,
      url: null,
      destination: null,
      eventTypes: integration.eventTypes,
      rateLimitPerSecond: null,
      ordering: null,
      signature: null,
      publicKey: null,
      filter: integration.filter,
      enabled: true,
      disabledReason: null,
      hasBearerToken: false,
      createdAt: integration.createdAt,
      updatedAt: integration.updatedAt,
    };
  }
  if (integration.product === 'custom') {
    return {
      integrationId: integration.integrationId,
      product: 'custom' as const,
      scope: 'channel' as const,
      channelId: integration.channelId,
      url: null,
      destination: null,
      eventTypes: null,
      rateLimitPerSecond: null,
      ordering: null,
      signature: null,
      publicKey: null,
      filter: null,
      enabled: true,
      disabledReason: null,
      hasBearerToken: false,
      createdAt: integration.createdAt,
      updatedAt: integration.updatedAt,
    };
  }
  return {
    integrationId: integration.integrationId,
    product: 'webhook' as const,
    scope: integration.scope,
    channelId: integration.channelId,
    url: (integration.destination?.type ?? 'http') === 'http' ? integration.url : null,
    destination: integration.destination ?? { type: 'http' as const },
    eventTypes: integration.eventTypes,
    // Webhooks stored before the limit existed have none.
    rateLimitPerSecond: integration.rateLimitPerSecond ?? null,
    ordering: integration.ordering ?? 'none',
    signature: integration.signature ?? 'v1',
    publicKey: integration.signature === 'v1a' && integration.signingKey ? publicKeyOf(integration.signingKey) : null,
    filter: integration.filter ?? null,
    enabled: integration.enabled,
    disabledReason: integration.disabledReason,
    hasBearerToken: integration.bearerToken !== null,
    createdAt: integration.createdAt,
    updatedAt: integration.updatedAt,
  };
}
