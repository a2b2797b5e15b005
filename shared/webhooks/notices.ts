import { type EventPublisher, markOf } from '../events/index.ts';
import type { Project } from '../projects/index.ts';
import type { WebhookDirectory, WebhookHealthStore } from './ports.ts';

/** A webhook failing this many attempts in a row is noticed (`WEBHOOK_FAILING_AFTER`). */
export const DEFAULT_FAILING_AFTER = 20;

/** Why a webhook was disabled, as `webhook.disabled` says it. */
export type DisabledReason = 'gone' | 'failing';

export interface WebhookNoticesDeps {
  publisher: Pick<EventPublisher, 'prepare' | 'send'>;
  projects: { get(projectId: string): Promise<Project | undefined> };
  directory: Pick<WebhookDirectory, 'disableWebhook' | 'clearDisabledMark'>;
  health: Pick<WebhookHealthStore, 'markFailingNotice' | 'clearMark'>;
  /** `WEBHOOK_FAILING_AFTER`. */
  failingAfter: number;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

/**
 * A project's webhook notices (`webhook.failing`, `webhook.disabled`), as state changes that produce events: the change writes
 * the event's outbox mark in its own conditional write, then the event is queued, then the mark cleared; a crash in
 * between leaves the mark for the event sweep. The events reach the project's other webhooks that take them (the
 * fan-out leaves out the one the notice is about) and, through the fan-out, the project's `contactEmail`.
 *
 * - `webhook.failing` `{ integrationId, consecutiveFailures, since }`: once per failing streak (a conditional write
 *   on the webhook's health item), once the streak reaches `failingAfter` failed attempts in a row;
 * - `webhook.disabled` `{ integrationId, reason }`: the write that disables the webhook (conditional on it being
 *   enabled) carries it, so it is published once per disabling, whoever disabled it.
 */
export function makeWebhookNotices(deps: WebhookNoticesDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});
  const companies = new Map<string, number>();

  async function companyOf(projectId: string): Promise<number> {
    let companyId = companies.get(projectId);
    if (companyId === undefined) {
      const project = await deps.projects.get(projectId);
      if (!project) throw new Error(`project ${projectId} not found`);
      companyId = project.companyId;
      if (companies.size > 10_000) companies.clear();
      companies.set(projectId, companyId);
    }
    return companyId;
  }

  /** Queues a marked event and clears its mark; a queue that fails leaves the mark to the sweep. */
  async function publish(message: Parameters<typeof deps.publisher.send>[0], clear: () => Promise<void>) {
    try {
      await deps.publisher.send(message);
      await clear();
    } catch (error) {
      log('warn', 'notice written but not queued; the event sweep will publish it', {
        eventId: message.eventId,
        error: String(error),
      });
    }
  }

  return {
    failingAfter: deps.failingAfter,

    /** Notices a failing streak, once; true when this call wrote (and published) the notice. */
    async failing(
      projectId: string,
      integrationId: string,
      streak: { consecutiveFailures: number; failingSince: number },
    ): Promise<boolean> {
      const at = now();
      const prepared = await deps.publisher.prepare(
        {
          type: 'webhook.failing',
          projectId,
          companyId: await companyOf(projectId),
          channel: null,
          data: {
            integrationId,
            consecutiveFailures: streak.consecutiveFailures,
            since: new Date(streak.failingSince).toISOString(),
          },
          exceptIntegrationId: integrationId,
        },
        { key: `webhook.failing:${integrationId}:${streak.failingSince}`, at: new Date(at) },
      );
      const mark = markOf(prepared);
      if (!(await deps.health.markFailingNotice(projectId, integrationId, deps.failingAfter, mark, at))) return false;
      log('warn', 'webhook failing: noticed', { integrationId, consecutiveFailures: streak.consecutiveFailures });
      await publish(prepared.message, () => deps.health.clearMark(projectId, integrationId, mark.eventId));
      return true;
    },

    /** Disables an enabled webhook and publishes `webhook.disabled`; false when it was not enabled (or is gone). */
    async disable(projectId: string, integrationId: string, reason: DisabledReason): Promise<boolean> {
      const at = now();
      const prepared = await deps.publisher.prepare(
        {
          type: 'webhook.disabled',
          projectId,
          companyId: await companyOf(projectId),
          channel: null,
          data: { integrationId, reason },
          exceptIntegrationId: integrationId,
        },
        { key: `webhook.disabled:${integrationId}:${reason}:${at}`, at: new Date(at) },
      );
      const mark = markOf(prepared);
      if (!(await deps.directory.disableWebhook(projectId, integrationId, reason, mark))) return false;
      log('warn', 'webhook disabled', { integrationId, reason });
      await publish(prepared.message, () => deps.directory.clearDisabledMark(projectId, integrationId, mark.eventId));
      return true;
    },
  };
}

export type WebhookNotices = ReturnType<typeof makeWebhookNotices>;
