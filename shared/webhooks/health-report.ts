import { NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import type { IntegrationStore } from '../integrations/index.ts';
import { requireProject, type Project } from '../projects/index.ts';
import { type AttemptHour, hourLabel, medianFromBuckets, type WebhookAttemptStats } from './attempt-stats.ts';
import type { WebhookDirectory } from './ports.ts';

const HOUR_MS = 3_600_000;
/** The report covers this many hours, the current one last. */
export const HEALTH_HOURS = 24;

export interface WebhookHealthReportDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  webhooks: Pick<WebhookDirectory, 'getWebhook'> & Pick<IntegrationStore, 'get'>;
  stats: WebhookAttemptStats;
  now?: () => number;
}

export interface HealthHour {
  /** Start of the hour, ISO 8601 UTC. */
  hour: string;
  succeeded: number;
  failed: number;
  /** Upper edge of the latency bucket holding the hour's median attempt; null without attempts. */
  medianLatencyMs: number | null;
}

/**
 * A webhook's last 24 hours of delivery attempts, hour by hour (hours without attempts as zeros), read from the
 * hourly counters the deliver worker keeps: one Query, never a scan of the deliveries.
 */
export function makeWebhookHealthReport(deps: WebhookHealthReportDeps) {
  const now = deps.now ?? Date.now;

  async function requireWebhook(projectId: string, integrationId: string) {
    if (await deps.webhooks.getWebhook(projectId, integrationId)) return;
    await requireProject(deps.projects, projectId);
    if (await deps.webhooks.get(projectId, integrationId)) {
      throw new ValidationError('Only webhook integrations have deliveries; this is a custom integration.', [
        { path: 'integrationId', message: 'Not a webhook', code: 'invalid_value' },
      ]);
    }
    throw new NotFoundError('integration', `Integration ${integrationId} does not exist.`);
  }

  return {
    async lastDay(projectId: string, integrationId: string) {
      await requireWebhook(projectId, integrationId);
      const currentHourStart = Math.floor(now() / HOUR_MS) * HOUR_MS;
      const firstHourStart = currentHourStart - (HEALTH_HOURS - 1) * HOUR_MS;
      const stored = await deps.stats.hours(
        projectId,
        integrationId,
        hourLabel(firstHourStart),
        hourLabel(currentHourStart),
      );
      const byHour = new Map<string, AttemptHour>(stored.map((h) => [h.hour, h]));
      const hours: HealthHour[] = [];
      for (let n = 0; n < HEALTH_HOURS; n++) {
        const start = firstHourStart + n * HOUR_MS;
        const counted = byHour.get(hourLabel(start));
        hours.push({
          hour: new Date(start).toISOString(),
          succeeded: counted?.succeeded ?? 0,
          failed: counted?.failed ?? 0,
          medianLatencyMs: counted ? medianFromBuckets(counted.latencyBuckets) : null,
        });
      }
      const succeeded = hours.reduce((a, h) => a + h.succeeded, 0);
      const failed = hours.reduce((a, h) => a + h.failed, 0);
      return { succeeded, failed, hours };
    },
  };
}

export type WebhookHealthReport = ReturnType<typeof makeWebhookHealthReport>;
