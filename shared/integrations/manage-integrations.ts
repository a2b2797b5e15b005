import { randomBytes } from 'node:crypto';
import { hashToken } from '../kernel/tokens.ts';
import { generateToken } from '../auth/index.ts';
import type { TokenStore } from '../auth/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import type { ChannelStore } from '../messaging/index.ts';
import { ChannelNotFoundError } from '../messaging/index.ts';
import { requireProject, type Project } from '../projects/index.ts';
import { forbiddenHostReason } from '../kernel/destination-policy.ts';
import type { WebhookEventType } from '../events/index.ts';
import {
  PREVIOUS_SECRET_GRACE_MS,
  type CustomIntegration,
  type Integration,
  type IntegrationStore,
  type SignatureScheme,
  type WebhookIntegration,
  type WebhookOrdering,
  type WebhookScope,
} from './integration.ts';
import { generateSigningKey, publicKeyOf } from './signing-keys.ts';
import type { WebhookFilter } from './webhook-filter.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

export interface IntegrationDeps {
  integrations: IntegrationStore;
  channels: Pick<ChannelStore, 'get'>;
  projects: { get(projectId: string): Promise<Project | undefined> };
  tokens: TokenStore;
  /** Whether webhook URLs may be plain `http://` (local runs); on AWS only `https://`. */
  allowPrivateDestinations: boolean;
  now?: () => Date;
}

export type CreateIntegrationInput =
  | {
      product: 'webhook';
      scope: WebhookScope;
      channelId?: string;
      url: string;
      bearerToken?: string;
      eventTypes?: WebhookEventType[];
      rateLimitPerSecond?: number | null;
      ordering?: WebhookOrdering;
      signature?: SignatureScheme;
      filter?: WebhookFilter | null;
    }
  | { product: 'custom'; channelId: string };

export interface PatchWebhookInput {
  url?: string;
  /** null removes it. */
  bearerToken?: string | null;
  /** null subscribes to every type. */
  eventTypes?: WebhookEventType[] | null;
  /** null removes the limit. */
  rateLimitPerSecond?: number | null;
  ordering?: WebhookOrdering;
  /** A switch keeps the other scheme's credentials signing for 24 h beside the new ones. */
  signature?: SignatureScheme;
  /** null removes it. */
  filter?: WebhookFilter | null;
  enabled?: boolean;
}

/** What rotating a webhook's signing credentials shows: the new `v1` secret (once), or the new `v1a` public key. */
export type RotatedCredentials = { signingSecret: string } | { publicKey: string };

/** A general-webhook slot claimed by a create that has not written its integration yet is not stolen before this. */
const SLOT_CLAIM_GRACE_MS = 60_000;

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks secret format). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Integrations of a project, for both products:
 * - webhook: URL (https unless private destinations are allowed), optional bearer token (write-only), event filter,
 *   signing secret shown once and rotatable (the previous one keeps signing for 24 h); at most one enabled general
 *   webhook per project (409 CONFLICT);
 * - custom: a token bound to one channel, shown once, rotatable (the old token fails on the very next request).
 */
export function makeIntegrationUseCases(deps: IntegrationDeps) {
  const now = deps.now ?? (() => new Date());
  const store = deps.integrations;

  async function requireIntegration(projectId: string, integrationId: string): Promise<Integration> {
    await requireProject(deps.projects, projectId);
    const integration = await store.get(projectId, integrationId);
    if (!integration) throw new NotFoundError('integration', `Integration ${integrationId} does not exist.`);
    return integration;
  }

  async function requireChannel(projectId: string, channelId: string): Promise<void> {
    if (!(await deps.channels.get(projectId, channelId))) throw new ChannelNotFoundError(channelId);
  }

  /**
   * Without private destinations: https only, and no host the address policy refuses by its text (loopback,
   * private, link-local, metadata IP literals in any form, `localhost`). Names are judged again on the address
   * connected to, at each delivery.
   */
  function checkUrl(url: string): void {
    if (deps.allowPrivateDestinations) return;
    if (!url.startsWith('https://')) {
      throw new ValidationError('The webhook URL must use https://.', [
        { path: 'url', message: 'Must be an https:// URL', code: 'invalid_format' },
      ]);
    }
    const reason = forbiddenHostReason(new URL(url).hostname);
    if (reason) {
      throw new ValidationError('The webhook URL points at a destination this deployment does not allow.', [
        {
          path: 'url',
          message: `The host is a ${reason} address; webhooks go to public addresses only`,
          code: 'custom',
        },
      ]);
    }
  }

  /**
   * Takes the project's one enabled-general-webhook slot, or 409. A slot whose holder is gone, disabled, or no
   * longer general (a crash between two writes) is taken over; a fresh claim of a create still in flight is not.
   */
  async function claimGeneralSlot(projectId: string, integrationId: string): Promise<void> {
    if (await store.claimGeneralWebhook(projectId, integrationId)) return;
    const slot = await store.generalWebhookHolder(projectId);
    if (slot === undefined) {
      if (await store.claimGeneralWebhook(projectId, integrationId)) return;
    } else {
      const holder = await store.get(projectId, slot.integrationId);
      const live = holder?.product === 'webhook' && holder.scope === 'general' && holder.enabled;
      const maybeInFlight = holder === undefined && now().getTime() - slot.claimedAt < SLOT_CLAIM_GRACE_MS;
      if (!live && !maybeInFlight && (await store.claimGeneralWebhook(projectId, integrationId, slot.integrationId)))
        return;
    }
    throw new ConflictError('This project already has an enabled general webhook; disable or delete it first.');
  }

  /**
   * Applies a change of signature scheme to `next` (in place): the scheme left keeps signing for 24 h as the previous
   * credential, so receivers move over without a gap; the new one gets fresh credentials. Returns the new `v1`
   * secret, to show once.
   */
  function switchScheme(
    next: WebhookIntegration,
    current: WebhookIntegration,
    scheme: SignatureScheme | undefined,
  ): string | undefined {
    if (scheme === undefined || scheme === current.signature) return undefined;
    const expiresAt = new Date(now().getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
    next.signature = scheme;
    if (scheme === 'v1a') {
      next.previousSigningSecret = { secret: current.signingSecret, expiresAt };
      next.signingKey = generateSigningKey();
      return undefined;
    }
    if (current.signingKey) next.previousSigningKey = { key: current.signingKey, expiresAt };
    next.signingSecret = generateSigningSecret();
    return next.signingSecret;
  }

  async function saveOr409(integration: Integration): Promise<void> {
    if (!(await store.update(integration)))
      throw new ConflictError('The integration was changed by another request at the same time; try again.');
  }

  return {
    /** A page of the project's integrations. */
    async list(projectId: string, page: PageRequest): Promise<Page<Integration>> {
      await requireProject(deps.projects, projectId);
      return store.list(projectId, page);
    },

    get: requireIntegration,

    /** Creates an integration; returns it with the secret shown this once (signing secret or custom token). */
    async create(
      projectId: string,
      input: CreateIntegrationInput,
    ): Promise<{ integration: Integration; signingSecret?: string; token?: string }> {
      await requireProject(deps.projects, projectId);
      const at = now().toISOString();
      const integrationId = newId('int');

      if (input.product === 'custom') {
        await requireChannel(projectId, input.channelId);
        const token = generateToken('custom');
        const integration: CustomIntegration = {
          product: 'custom',
          integrationId,
          projectId,
          scope: 'channel',
          channelId: input.channelId,
          tokenHash: hashToken(token),
          createdAt: at,
          updatedAt: at,
          version: 1,
        };
        // The integration first, then the grant: a crash in between leaves an integration whose token never
        // worked (rotate it), never a working token without an integration.
        await store.create(integration);
        await deps.tokens.put(integration.tokenHash, {
          kind: 'custom',
          projectId,
          integrationId,
          channelId: input.channelId,
        });
        return { integration, token };
      }

      if (input.scope === 'channel') await requireChannel(projectId, input.channelId!);
      checkUrl(input.url);
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
        url: input.url,
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
      if (integration.scope === 'general') await claimGeneralSlot(projectId, integrationId);
      try {
        await store.create(integration);
      } catch (error) {
        if (integration.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
        throw error;
      }
      // A v1a webhook's receivers need only its public key, on the integration itself.
      return signature === 'v1' ? { integration, signingSecret } : { integration };
    },

    /**
     * Changes a webhook's URL, bearer token, event types, limit, ordering, signature scheme, filter or enabled flag.
     * A switch to `v1` answers with a fresh signing secret, shown once.
     */
    async patch(
      projectId: string,
      integrationId: string,
      input: PatchWebhookInput,
    ): Promise<{ integration: Integration; signingSecret?: string }> {
      const current = await requireIntegration(projectId, integrationId);
      if (current.product !== 'webhook') {
        throw new ValidationError('A custom integration has nothing to change: rotate its token or delete it.', [
          { path: '', message: 'Only webhook integrations can be patched', code: 'custom' },
        ]);
      }
      if (input.url !== undefined) checkUrl(input.url);
      const next: WebhookIntegration = {
        ...current,
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.bearerToken !== undefined ? { bearerToken: input.bearerToken } : {}),
        ...(input.eventTypes !== undefined ? { eventTypes: input.eventTypes } : {}),
        ...(input.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: input.rateLimitPerSecond } : {}),
        ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
        ...(input.filter !== undefined ? { filter: input.filter } : {}),
        updatedAt: now().toISOString(),
        version: current.version + 1,
      };
      const shownSecret = switchScheme(next, current, input.signature);
      const enabling = input.enabled === true && !current.enabled;
      const disabling = input.enabled === false && current.enabled;
      if (enabling) Object.assign(next, { enabled: true, disabledReason: null });
      if (disabling) Object.assign(next, { enabled: false, disabledReason: 'manual' });

      if (enabling && next.scope === 'general') await claimGeneralSlot(projectId, integrationId);
      try {
        await saveOr409(next);
      } catch (error) {
        if (enabling && next.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
        throw error;
      }
      if (disabling && next.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
      return shownSecret === undefined ? { integration: next } : { integration: next, signingSecret: shownSecret };
    },

    /**
     * Deletes an integration; a custom token stops working at once (its grant goes first). The record is deleted
     * only at the version read: a rotation that recorded a new token meanwhile makes this read again and delete
     * that token's grant too, so no token outlives its integration.
     */
    async remove(projectId: string, integrationId: string): Promise<void> {
      let current = await requireIntegration(projectId, integrationId);
      for (;;) {
        if (current.product === 'custom') await deps.tokens.delete(current.tokenHash);
        if (await store.delete(projectId, integrationId, current.version)) break;
        const changed = await store.get(projectId, integrationId);
        // Gone: whoever deleted it deleted the grant of the token it recorded.
        if (!changed) return;
        current = changed;
      }
      if (current.product === 'webhook' && current.scope === 'general')
        await store.releaseGeneralWebhook(projectId, integrationId);
    },

    /**
     * Replaces a custom integration's token, shown once: 1. the old grant is deleted (the old token fails from the
     * very next request); 2. the new grant is written; 3. the new hash is recorded if no other rotation or delete
     * got there first, else this rotation deletes its own grant and answers 409. The grant is in place before the
     * record names it, so a delete that reads the new hash always finds the grant it must remove, and a rotation
     * that lost leaves nothing behind: at most one token, the recorded one, stays alive.
     */
    async rotateToken(projectId: string, integrationId: string): Promise<string> {
      const current = await requireIntegration(projectId, integrationId);
      if (current.product !== 'custom') {
        throw new ValidationError(
          'Only custom integrations have a token; webhooks rotate their signing secret (rotate-secret).',
          [{ path: '', message: 'Not a custom integration', code: 'custom' }],
        );
      }
      await deps.tokens.delete(current.tokenHash);
      const token = generateToken('custom');
      const next: CustomIntegration = {
        ...current,
        tokenHash: hashToken(token),
        updatedAt: now().toISOString(),
        version: current.version + 1,
      };
      await deps.tokens.put(next.tokenHash, { kind: 'custom', projectId, integrationId, channelId: current.channelId });
      try {
        await saveOr409(next);
      } catch (error) {
        await deps.tokens.delete(next.tokenHash);
        throw error;
      }
      return token;
    },

    /**
     * Replaces a webhook's signing credentials; the previous ones keep signing for 24 h. `v1`: a new secret, shown
     * once. `v1a`: a new key pair, whose public key is shown (and stays on the webhook).
     */
    async rotateSecret(projectId: string, integrationId: string): Promise<RotatedCredentials> {
      const current = await requireIntegration(projectId, integrationId);
      if (current.product !== 'webhook') {
        throw new ValidationError(
          'Only webhooks have a signing secret; custom integrations rotate their token (rotate-token).',
          [{ path: '', message: 'Not a webhook integration', code: 'custom' }],
        );
      }
      const at = now();
      const expiresAt = new Date(at.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
      const base = { ...current, updatedAt: at.toISOString(), version: current.version + 1 };
      if (current.signature === 'v1a' && current.signingKey) {
        const signingKey = generateSigningKey();
        await saveOr409({ ...base, signingKey, previousSigningKey: { key: current.signingKey, expiresAt } });
        return { publicKey: publicKeyOf(signingKey) };
      }
      const signingSecret = generateSigningSecret();
      await saveOr409({ ...base, signingSecret, previousSigningSecret: { secret: current.signingSecret, expiresAt } });
      return { signingSecret };
    },
  };
}

export type IntegrationUseCases = ReturnType<typeof makeIntegrationUseCases>;
