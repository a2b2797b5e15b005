import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  liveSigningSecrets,
  type Integration,
  type IntegrationStore,
  type WebhookIntegration,
  type WebhookTarget,
} from '../../integrations/integration.ts';
import type { SecretBox } from '../../integrations/secret-box.ts';
import { isConditionFailure, keys, queryAll, type DynamoTable } from './table.ts';

const INTEGRATION_PREFIX = 'INT#';

/** What is stored for a webhook's secrets: each sealed (AES-256-GCM) and bound to its integration. */
interface SealedWebhookSecrets {
  signingSecret: string;
  previousSigningSecret?: { sealed: string; expiresAt: string };
  bearerToken?: string;
}

/**
 * Integrations under their project: `PRJ#<projectId>` / `INT#<integrationId>`, so the fan-out lists a project's
 * webhooks with one Query. Webhook secrets (signing secrets, bearer token) are stored sealed with the SecretBox;
 * custom tokens are stored only as their SHA-256 (on the integration and as the TokenStore key).
 *
 * The project's one enabled general webhook is enforced with a guard item (`GENERAL_WEBHOOK`) taken with a
 * conditional write: no transactions needed.
 */
export class DynamoIntegrationStore implements IntegrationStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(integration: Integration): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: this.toItem(integration),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(projectId: string, integrationId: string): Promise<Integration | undefined> {
    const out = await this.table.client.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.integration(projectId, integrationId),
        ConsistentRead: true,
      }),
    );
    return out.Item ? this.fromItem(out.Item) : undefined;
  }

  async list(projectId: string): Promise<Integration[]> {
    return (await this.query(projectId, false)).map((item) => this.fromItem(item));
  }

  async update(integration: Integration): Promise<boolean> {
    try {
      await this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: this.toItem(integration),
          ConditionExpression: '#version = :previous',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':previous': integration.version - 1 },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async delete(projectId: string, integrationId: string, expectedVersion?: number): Promise<Integration | undefined> {
    try {
      const out = await this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
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
      return out.Attributes ? this.fromItem(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async listWebhooks(projectId: string): Promise<WebhookTarget[]> {
    const at = this.now();
    return (await this.query(projectId, true)).map((item) => toTarget(this.fromItem(item) as WebhookIntegration, at));
  }

  async getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined> {
    const integration = await this.get(projectId, integrationId);
    return integration?.product === 'webhook' ? toTarget(integration, this.now()) : undefined;
  }

  async disableWebhook(projectId: string, integrationId: string, reason: string): Promise<boolean> {
    let scope: string | undefined;
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.integration(projectId, integrationId),
          UpdateExpression:
            'SET #i.enabled = :false, #i.disabledReason = :reason, #i.updatedAt = :at, #version = #version + :one',
          ConditionExpression: 'attribute_exists(pk) AND #product = :webhook',
          ExpressionAttributeNames: { '#version': 'version', '#i': 'integration', '#product': 'product' },
          ExpressionAttributeValues: {
            ':false': false,
            ':reason': reason,
            ':at': this.now().toISOString(),
            ':one': 1,
            ':webhook': 'webhook',
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      scope = (out.Attributes?.integration as { scope?: string } | undefined)?.scope;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    if (scope === 'general') await this.releaseGeneralWebhook(projectId, integrationId);
    return true;
  }

  async generalWebhookHolder(projectId: string): Promise<{ integrationId: string; claimedAt: number } | undefined> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.generalWebhook(projectId), ConsistentRead: true }),
    );
    return out.Item
      ? { integrationId: out.Item.integrationId as string, claimedAt: out.Item.claimedAt as number }
      : undefined;
  }

  async claimGeneralWebhook(projectId: string, integrationId: string, staleHolder?: string): Promise<boolean> {
    try {
      await this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
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
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async releaseGeneralWebhook(projectId: string, integrationId: string): Promise<void> {
    try {
      await this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.generalWebhook(projectId),
          ConditionExpression: 'integrationId = :mine',
          ExpressionAttributeValues: { ':mine': integrationId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private query(projectId: string, webhooksOnly: boolean): Promise<Record<string, unknown>[]> {
    return queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ...(webhooksOnly
        ? { FilterExpression: '#product = :webhook', ExpressionAttributeNames: { '#product': 'product' } }
        : {}),
      ExpressionAttributeValues: {
        ':pk': `PRJ#${projectId}`,
        ':prefix': INTEGRATION_PREFIX,
        ...(webhooksOnly ? { ':webhook': 'webhook' } : {}),
      },
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
    if (integration.product === 'custom') return { ...base, integration };
    const { signingSecret, previousSigningSecret, bearerToken, ...plain } = integration;
    const sealed: SealedWebhookSecrets = {
      signingSecret: this.secrets.seal(signingSecret, this.context(integration, 'signing')),
    };
    if (previousSigningSecret) {
      sealed.previousSigningSecret = {
        sealed: this.secrets.seal(previousSigningSecret.secret, this.context(integration, 'signing-previous')),
        expiresAt: previousSigningSecret.expiresAt,
      };
    }
    if (bearerToken !== null) sealed.bearerToken = this.secrets.seal(bearerToken, this.context(integration, 'bearer'));
    return { ...base, integration: plain, sealed };
  }

  private fromItem(item: Record<string, unknown>): Integration {
    const stored = item.integration as Record<string, unknown>;
    const version = item.version as number;
    if (item.product === 'custom') return { ...(stored as unknown as Integration), version };
    const plain = stored as Omit<WebhookIntegration, 'signingSecret' | 'previousSigningSecret' | 'bearerToken'>;
    const sealed = item.sealed as SealedWebhookSecrets;
    return {
      ...plain,
      version,
      signingSecret: this.secrets.open(sealed.signingSecret, this.context(plain, 'signing')),
      previousSigningSecret: sealed.previousSigningSecret
        ? {
            secret: this.secrets.open(sealed.previousSigningSecret.sealed, this.context(plain, 'signing-previous')),
            expiresAt: sealed.previousSigningSecret.expiresAt,
          }
        : null,
      bearerToken: sealed.bearerToken ? this.secrets.open(sealed.bearerToken, this.context(plain, 'bearer')) : null,
    };
  }
}

function toTarget(webhook: WebhookIntegration, at: Date): WebhookTarget {
  return {
    projectId: webhook.projectId,
    integrationId: webhook.integrationId,
    scope: webhook.scope,
    channelId: webhook.channelId,
    url: webhook.url,
    bearerToken: webhook.bearerToken,
    eventTypes: webhook.eventTypes,
    enabled: webhook.enabled,
    disabledReason: webhook.disabledReason,
    signingSecret: webhook.signingSecret,
    previousSigningSecret: webhook.previousSigningSecret,
    signingSecrets: liveSigningSecrets(webhook, at),
  };
}
