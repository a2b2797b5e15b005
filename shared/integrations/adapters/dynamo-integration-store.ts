import {
  liveSigningKeys,
  liveSigningSecrets,
  type Integration,
  type IntegrationStore,
  type WebhookIntegration,
  type WebhookTarget,
} from '../integration.ts';
import type { SecretBox } from '../../kernel/secret-box.ts';
import {
  applied,
  conditionalWrite,
  deleteItem,
  type DynamoTable,
  putItem,
  queryAll,
  queryPageOf,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import { clearOutboxMark, type OutboxMark, outboxUpdate } from '../../events/index.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';

/** What is stored for a webhook's secrets: each sealed (AES-256-GCM) and bound to its integration. */
interface SealedWebhookSecrets {
  signingSecret: string;
  previousSigningSecret?: { sealed: string; expiresAt: string };
  signingKey?: string;
  previousSigningKey?: { sealed: string; expiresAt: string };
  bearerToken?: string;
}

/**
 * How long after the project's webhook change marker is written the change itself has landed (its one write, right
 * after). Fan-out instances read the project's webhooks afresh until then; a change that took longer than this (a
 * write stuck for half a minute) could be missed by a list read while it was pending.
 */
export const WEBHOOK_CHANGE_WINDOW_MS = 30_000;

/**
 * Integrations under their project: `PRJ#<projectId>` / `INT#<integrationId>`, so the fan-out lists a project's
 * webhooks with one Query. Webhook secrets (signing secrets, bearer token) are stored sealed with the SecretBox;
 * custom tokens are stored only as their SHA-256 (on the integration and as the TokenStore key).
 *
 * The project's one enabled general webhook is enforced with a guard item (`GENERAL_WEBHOOK`) taken with a
 * conditional write: no transactions needed. Every change of a webhook first moves the project's change marker
 * (`keys.webhookChanges`) forward, so a list of its webhooks remembered by a fan-out instance is checked with a read
 * of one item (`CachedWebhookLists`); without transactions (which the local table lacks), the marker says by when
 * the change will have landed rather than that it has.
 */
export class DynamoIntegrationStore implements IntegrationStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(integration: Integration): Promise<void> {
    if (integration.product === 'webhook') await this.markWebhooksChanging(integration.projectId);
    await putItem(this.table, {
      Item: this.toItem(integration),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(projectId: string, integrationId: string): Promise<Integration | undefined> {
    const item = await readItem(this.table, keys.integration(projectId, integrationId));
    return item ? this.fromItem(item) : undefined;
  }

  async list(projectId: string, page: PageRequest): Promise<Page<Integration>> {
    const collection = collections.integrations(projectId);
    const out = await queryPageOf(
      this.table,
      { ...inCollection(collection), ConsistentRead: true },
      page,
      pageKeyOf(collection),
    );
    return { ...out, items: out.items.map((item) => this.fromItem(item)) };
  }

  async update(integration: Integration): Promise<boolean> {
    // An UpdateItem of the record's own attributes, not a PutItem: a `webhook.disabled` mark still pending on the item
    // (shared/events/outbox.ts) survives a PATCH that lands before it is cleared.
    const { pk: _pk, sk: _sk, ...attributes } = this.toItem(integration);
    if (integration.product === 'webhook') await this.markWebhooksChanging(integration.projectId);
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':previous': integration.version - 1 };
    const set: string[] = [];
    const remove: string[] = [];
    for (const name of ['product', 'version', 'integration', 'sealed']) {
      names[`#${name}`] = name;
      if (attributes[name] === undefined) remove.push(`#${name}`);
      else {
        set.push(`#${name} = :${name}`);
        values[`:${name}`] = attributes[name];
      }
    }
    return applied(
      updateItem(this.table, {
        Key: keys.integration(integration.projectId, integration.integrationId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: '#version = :previous',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async delete(projectId: string, integrationId: string, expectedVersion?: number): Promise<Integration | undefined> {
    // Whatever it is: which product it was is known only once it is gone.
    await this.markWebhooksChanging(projectId);
    const write = await conditionalWrite(
      deleteItem(this.table, {
        Key: keys.integration(projectId, integrationId),
        ReturnValues: 'ALL_OLD',
        ...(expectedVersion === undefined
          ? {}
          : {
              ConditionExpression: '#version = :expected',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: { ':expected': expectedVersion },
            }),
      }),
    );
    return write.applied && write.output.Attributes ? this.fromItem(write.output.Attributes) : undefined;
  }

  async listWebhooks(projectId: string): Promise<WebhookTarget[]> {
    const at = this.now();
    return (await this.webhookIntegrations(projectId)).map((webhook) => webhookTarget(webhook, at));
  }

  /** The project's webhooks as stored (secrets opened): one consistent Query of the project's partition. */
  async webhookIntegrations(projectId: string): Promise<WebhookIntegration[]> {
    return (await this.query(projectId, true)).map((item) => this.fromItem(item) as WebhookIntegration);
  }

  /**
   * The time (epoch ms) by which the project's last webhook change has landed: a list read (begun) after it, with
   * room for clocks apart, holds every change so far. 0 when no webhook of the project ever changed.
   */
  async webhooksChangedBy(projectId: string): Promise<number> {
    const item = await readItem(this.table, keys.webhookChanges(projectId));
    return typeof item?.changedBy === 'number' ? item.changedBy : 0;
  }

  /**
   * Written before a webhook is created, changed, disabled or deleted (no transactions: see the class), so a crash
   * between the two writes leaves only lists read afresh a while longer, never a list that misses the change. Only
   * moves forward.
   */
  private async markWebhooksChanging(projectId: string): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.webhookChanges(projectId),
        UpdateExpression: 'SET #by = :by',
        ConditionExpression: 'attribute_not_exists(#by) OR #by < :by',
        ExpressionAttributeNames: { '#by': 'changedBy' },
        ExpressionAttributeValues: { ':by': this.now().getTime() + WEBHOOK_CHANGE_WINDOW_MS },
      }),
    );
  }

  async getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined> {
    const integration = await this.get(projectId, integrationId);
    return integration?.product === 'webhook' ? webhookTarget(integration, this.now()) : undefined;
  }

  async disableWebhook(projectId: string, integrationId: string, reason: string, mark?: OutboxMark): Promise<boolean> {
    const key = keys.integration(projectId, integrationId);
    const outbox = mark ? outboxUpdate(mark, key.pk) : undefined;
    await this.markWebhooksChanging(projectId);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: key,
        UpdateExpression:
          'SET #i.enabled = :false, #i.disabledReason = :reason, #i.updatedAt = :at, #version = #version + :one' +
          (outbox ? `, ${outbox.set} ADD ${outbox.add}` : ''),
        // Only an enabled webhook is disabled: the change (and its `webhook.disabled` event) happens once.
        ConditionExpression: 'attribute_exists(pk) AND #product = :webhook AND #i.enabled = :true',
        ExpressionAttributeNames: {
          '#version': 'version',
          '#i': 'integration',
          '#product': 'product',
          ...outbox?.names,
        },
        ExpressionAttributeValues: {
          ':false': false,
          ':true': true,
          ':reason': reason,
          ':at': this.now().toISOString(),
          ':one': 1,
          ':webhook': 'webhook',
          ...outbox?.values,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (!write.applied) return false;
    const scope = (write.output.Attributes?.integration as { scope?: string } | undefined)?.scope;
    if (scope === 'general') await this.releaseGeneralWebhook(projectId, integrationId);
    return true;
  }

  clearDisabledMark(projectId: string, integrationId: string, eventId: string): Promise<void> {
    return clearOutboxMark(this.table, keys.integration(projectId, integrationId), eventId);
  }

  async generalWebhookHolder(projectId: string): Promise<{ integrationId: string; claimedAt: number } | undefined> {
    const item = await readItem(this.table, keys.generalWebhook(projectId));
    return item ? { integrationId: item.integrationId as string, claimedAt: item.claimedAt as number } : undefined;
  }

  async claimGeneralWebhook(projectId: string, integrationId: string, staleHolder?: string): Promise<boolean> {
    return applied(
      putItem(this.table, {
        Item: { ...keys.generalWebhook(projectId), integrationId, claimedAt: this.now().getTime() },
        ConditionExpression:
          'attribute_not_exists(pk) OR integrationId = :mine' +
          (staleHolder === undefined ? '' : ' OR integrationId = :stale'),
        ExpressionAttributeValues: {
          ':mine': integrationId,
          ...(staleHolder === undefined ? {} : { ':stale': staleHolder }),
        },
      }),
    );
  }

  async releaseGeneralWebhook(projectId: string, integrationId: string): Promise<void> {
    await applied(
      deleteItem(this.table, {
        Key: keys.generalWebhook(projectId),
        ConditionExpression: 'integrationId = :mine',
        ExpressionAttributeValues: { ':mine': integrationId },
      }),
    );
  }

  private query(projectId: string, webhooksOnly: boolean): Promise<Record<string, unknown>[]> {
    return queryAll(this.table, {
      ...inCollection(collections.integrations(projectId), webhooksOnly ? { ':webhook': 'webhook' } : {}),
      ...(webhooksOnly
        ? { FilterExpression: '#product = :webhook', ExpressionAttributeNames: { '#product': 'product' } }
        : {}),
      ConsistentRead: true,
    });
  }

  private context(integration: Pick<Integration, 'projectId' | 'integrationId'>, purpose: string): string {
    return `integration:${integration.projectId}/${integration.integrationId}:${purpose}`;
  }

  private toItem(integration: Integration): Record<string, unknown> {
    const base = {
      ...keys.integration(integration.projectId, integration.integrationId),
      product: integration.product,
      version: integration.version,
    };
    if (integration.product !== 'webhook') return { ...base, integration };
    const { signingSecret, previousSigningSecret, signingKey, previousSigningKey, bearerToken, ...plain } = integration;
    const sealed: SealedWebhookSecrets = {
      signingSecret: this.secrets.seal(signingSecret, this.context(integration, 'signing')),
    };
    if (previousSigningSecret) {
      sealed.previousSigningSecret = {
        sealed: this.secrets.seal(previousSigningSecret.secret, this.context(integration, 'signing-previous')),
        expiresAt: previousSigningSecret.expiresAt,
      };
    }
    if (signingKey) sealed.signingKey = this.secrets.seal(signingKey, this.context(integration, 'signing-key'));
    if (previousSigningKey) {
      sealed.previousSigningKey = {
        sealed: this.secrets.seal(previousSigningKey.key, this.context(integration, 'signing-key-previous')),
        expiresAt: previousSigningKey.expiresAt,
      };
    }
    if (bearerToken !== null) sealed.bearerToken = this.secrets.seal(bearerToken, this.context(integration, 'bearer'));
    return { ...base, integration: plain, sealed };
  }

  private fromItem(item: Record<string, unknown>): Integration {
    const stored = item.integration as Record<string, unknown>;
    const version = item.version as number;
    if (item.product !== 'webhook') return { ...(stored as unknown as Integration), version };
    const plain = stored as Omit<
      WebhookIntegration,
      'signingSecret' | 'previousSigningSecret' | 'signingKey' | 'previousSigningKey' | 'bearerToken'
    >;
    const sealed = item.sealed as SealedWebhookSecrets;
    return {
      ...plain,
      // Webhooks stored before ordering, signatures and filters existed have none of these: the defaults.
      ordering: plain.ordering ?? 'none',
      signature: plain.signature ?? 'v1',
      filter: plain.filter ?? null,
      version,
      signingSecret: this.secrets.open(sealed.signingSecret, this.context(plain, 'signing')),
      previousSigningSecret: sealed.previousSigningSecret
        ? {
            secret: this.secrets.open(sealed.previousSigningSecret.sealed, this.context(plain, 'signing-previous')),
            expiresAt: sealed.previousSigningSecret.expiresAt,
          }
        : null,
      signingKey: sealed.signingKey ? this.secrets.open(sealed.signingKey, this.context(plain, 'signing-key')) : null,
      previousSigningKey: sealed.previousSigningKey
        ? {
            key: this.secrets.open(sealed.previousSigningKey.sealed, this.context(plain, 'signing-key-previous')),
            expiresAt: sealed.previousSigningKey.expiresAt,
          }
        : null,
      bearerToken: sealed.bearerToken ? this.secrets.open(sealed.bearerToken, this.context(plain, 'bearer')) : null,
    };
  }
}

/** What the workers need of a webhook, its signing secrets those still live at `at`. */
export function webhookTarget(webhook: WebhookIntegration, at: Date): WebhookTarget {
  return {
    projectId: webhook.projectId,
    integrationId: webhook.integrationId,
    scope: webhook.scope,
    channelId: webhook.channelId,
    url: webhook.url,
    ...(webhook.destination && webhook.destination.type !== 'http'
      ? { aws: { destination: webhook.destination, externalId: webhook.externalId ?? '' } }
      : {}),
    bearerToken: webhook.bearerToken,
    eventTypes: webhook.eventTypes,
    ordering: webhook.ordering,
    filter: webhook.filter,
    enabled: webhook.enabled,
    disabledReason: webhook.disabledReason,
    signingSecrets: liveSigningSecrets(webhook, at),
    signingKeys: liveSigningKeys(webhook, at),
  };
}
