import type { HealthFold, WebhookHealthState, WebhookHealthStore } from '../ports.ts';
import { clearOutboxMark, type OutboxMark, outboxUpdate } from '../../events/index.ts';
import { applied, type DynamoTable, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys } from '../../contract/keys.ts';

/** A health item outlives its last change by this much (it goes with a deleted webhook eventually). */
const HEALTH_RETENTION_SECONDS = 30 * 86400;

function stateOf(attributes: Record<string, unknown> | undefined): WebhookHealthState {
  const consecutiveFailures = typeof attributes?.consecutiveFailures === 'number' ? attributes.consecutiveFailures : 0;
  return {
    consecutiveFailures,
    failingSince:
      consecutiveFailures > 0 && typeof attributes?.failingSince === 'number' ? attributes.failingSince : null,
    noticed: typeof attributes?.failingNoticeAt === 'number',
  };
}

/**
 * Per-webhook failing streak (`PRJ#<projectId>` / `WHHEALTH#<integrationId>`): `consecutiveFailures`, `failingSince`
 * (the streak's first failure) and `failingNoticeAt` (its `webhook.failing` notice, once per streak). A deliver batch
 * folds its attempts to one webhook into one UpdateItem, no read: failures add to the streak; a success ends it
 * (the failures after it start the next one). The notice's outbox mark rides on this item (shared/events/outbox.ts).
 */
export class DynamoWebhookHealthStore implements WebhookHealthStore {
  constructor(private readonly table: DynamoTable) {}

  async fold(projectId: string, integrationId: string, fold: HealthFold, at: number): Promise<WebhookHealthState> {
    const exp = Math.floor(at / 1000) + HEALTH_RETENTION_SECONDS;
    if (fold.lastSuccessAt !== undefined) {
      const failing = fold.failuresAfter > 0;
      const out = await updateItem(this.table, {
        Key: keys.webhookHealth(projectId, integrationId),
        UpdateExpression:
          `SET consecutiveFailures = :n, lastSuccessAt = :ok, expiresAt = :exp` +
          (failing ? ', failingSince = :since REMOVE failingNoticeAt' : ' REMOVE failingSince, failingNoticeAt'),
        ExpressionAttributeValues: {
          ':n': fold.failuresAfter,
          ':ok': fold.lastSuccessAt,
          ':exp': exp,
          ...(failing ? { ':since': fold.firstFailureAt ?? at } : {}),
        },
        ReturnValues: 'ALL_NEW',
      });
      return stateOf(out.Attributes);
    }
    const out = await updateItem(this.table, {
      Key: keys.webhookHealth(projectId, integrationId),
      UpdateExpression:
        'ADD consecutiveFailures :n SET failingSince = if_not_exists(failingSince, :since), lastFailureAt = :at, ' +
        'expiresAt = :exp',
      ExpressionAttributeValues: {
        ':n': fold.failuresAfter,
        ':since': fold.firstFailureAt ?? at,
        ':at': at,
        ':exp': exp,
      },
      ReturnValues: 'ALL_NEW',
    });
    return stateOf(out.Attributes);
  }

  async markFailingNotice(
    projectId: string,
    integrationId: string,
    atLeast: number,
    mark: OutboxMark,
    at: number,
  ): Promise<boolean> {
    const key = keys.webhookHealth(projectId, integrationId);
    const outbox = outboxUpdate(mark, key.pk);
    return applied(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: `SET failingNoticeAt = :at, ${outbox.set} ADD ${outbox.add}`,
        ConditionExpression: 'attribute_not_exists(failingNoticeAt) AND consecutiveFailures >= :atLeast',
        ExpressionAttributeNames: outbox.names,
        ExpressionAttributeValues: { ':at': at, ':atLeast': atLeast, ...outbox.values },
      }),
    );
  }

  clearMark(projectId: string, integrationId: string, eventId: string): Promise<void> {
    return clearOutboxMark(this.table, keys.webhookHealth(projectId, integrationId), eventId);
  }
}
