import type { CountedAttempt, WebhookAttemptStats } from './attempt-stats.ts';
import type { WebhookNotices } from './notices.ts';
import type { HealthFold, WebhookDirectory, WebhookHealthStore } from './ports.ts';

/** A webhook failing every delivery for this long in a row is disabled (docs/reference/webhooks.md). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86400 * 1000;
/** How long "this webhook is not failing", learnt from the store, spares a success its health write. */
const HEALTH_CACHE_MS = 60_000;
/** Webhooks each instance remembers as healthy or noticed; past this, it forgets them all (a read costs one write). */
const MAX_REMEMBERED = 10_000;

export interface BatchHealthDeps {
  directory: Pick<WebhookDirectory, 'disableWebhook'>;
  health: WebhookHealthStore;
  /** Hourly attempt counters for the console's health chart (folded per batch: one update per webhook and hour). */
  attemptStats?: WebhookAttemptStats;
  /** `webhook.failing` / `webhook.disabled`; without it a webhook is disabled with no notice. */
  notices?: WebhookNotices;
  log: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

/**
 * What a deliver batch's attempts change beyond their deliveries, once the batch is done: the chart's hourly
 * counters (one update per webhook and hour), and each webhook's failing streak (one update per webhook, none for a
 * webhook known not to be failing whose attempts all succeeded), which notices a long streak once (`webhook.failing`)
 * and disables a webhook failing for 5 days. Neither ever fails deliveries that already happened.
 */
export function makeBatchHealth(deps: BatchHealthDeps) {
  const log = deps.log;
  /** Webhooks known (from the store, within {@link HEALTH_CACHE_MS}) not to be failing. */
  const notFailing = new Map<string, number>();
  /**
   * Webhooks known (from the store, within {@link HEALTH_CACHE_MS}) to be failing with their notice already written:
   * more failures change nothing anyone reads until a success or the 5 days, so a batch of failures writes nothing
   * (a dead endpoint at thousands of deliveries a second would otherwise write its project's partition per batch).
   */
  const failingNoticed = new Map<string, number>();

  async function disable(job: { projectId: string; integrationId: string }, reason: 'gone' | 'failing') {
    notFailing.delete(job.integrationId);
    failingNoticed.delete(job.integrationId);
    if (deps.notices) await deps.notices.disable(job.projectId, job.integrationId, reason);
    else await deps.directory.disableWebhook(job.projectId, job.integrationId, reason);
  }

  /** The chart's counters: one update per webhook and hour for the whole batch. */
  async function countAttempts(tally: CountedAttempt[]): Promise<void> {
    if (!deps.attemptStats || !tally.length) return;
    try {
      await deps.attemptStats.add(tally);
    } catch (error) {
      // The counters never fail deliveries that already happened (the delivery log stays exact).
      log('warn', 'webhook attempt counters not updated', { attempts: tally.length, error: String(error) });
    }
  }

  /** One webhook's streak, its batch's fold written (unless the caches say it changes nothing anyone reads). */
  async function updateOne(projectId: string, integrationId: string, fold: HealthFold, at: number): Promise<void> {
    const knownHealthy = at - (notFailing.get(integrationId) ?? -Infinity) < HEALTH_CACHE_MS;
    if (fold.failuresAfter === 0 && knownHealthy) return;
    const knownNoticed = at - (failingNoticed.get(integrationId) ?? -Infinity) < HEALTH_CACHE_MS;
    if (fold.lastSuccessAt === undefined && knownNoticed) return;
    const streak = await deps.health.fold(projectId, integrationId, fold, at);
    if (streak.failingSince === null) {
      notFailing.set(integrationId, at);
      failingNoticed.delete(integrationId);
      if (notFailing.size > MAX_REMEMBERED) notFailing.clear();
      return;
    }
    notFailing.delete(integrationId);
    if (streak.noticed && at - streak.failingSince < DISABLE_AFTER_FAILING_MS - HEALTH_CACHE_MS) {
      failingNoticed.set(integrationId, at);
      if (failingNoticed.size > MAX_REMEMBERED) failingNoticed.clear();
    } else failingNoticed.delete(integrationId);
    if (at - streak.failingSince >= DISABLE_AFTER_FAILING_MS) {
      log('warn', 'webhook failing for 5 days: disabled', {
        integrationId,
        failingSince: new Date(streak.failingSince).toISOString(),
      });
      await disable({ projectId, integrationId }, 'failing');
    } else if (deps.notices && !streak.noticed && streak.consecutiveFailures >= deps.notices.failingAfter) {
      await deps.notices.failing(projectId, integrationId, {
        consecutiveFailures: streak.consecutiveFailures,
        failingSince: streak.failingSince,
      });
    }
  }

  /** Each webhook's failing streak, folded from the batch's attempts in the order they ended. */
  async function updateHealth(tally: CountedAttempt[], at: number): Promise<void> {
    await Promise.all(
      foldByWebhook(tally).map(async ({ projectId, integrationId, fold }) => {
        try {
          await updateOne(projectId, integrationId, fold, at);
        } catch (error) {
          // Health bookkeeping never fails deliveries that already happened.
          log('warn', 'webhook health not updated', { integrationId, error: String(error) });
        }
      }),
    );
  }

  return { disable, countAttempts, updateHealth };
}

/** The batch's attempts per webhook, in the order they ended: its last success and the failures after it. */
function foldByWebhook(tally: CountedAttempt[]) {
  const byWebhook = new Map<string, { projectId: string; integrationId: string; fold: HealthFold }>();
  for (const a of [...tally].sort((x, y) => x.at - y.at)) {
    let entry = byWebhook.get(a.integrationId);
    if (!entry) {
      entry = { projectId: a.projectId, integrationId: a.integrationId, fold: { failuresAfter: 0 } };
      byWebhook.set(a.integrationId, entry);
    }
    if (a.succeeded) entry.fold = { lastSuccessAt: a.at, failuresAfter: 0 };
    else {
      entry.fold.failuresAfter++;
      entry.fold.firstFailureAt ??= a.at;
    }
  }
  return [...byWebhook.values()];
}
