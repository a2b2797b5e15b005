import type { EventPublisher, WebhookEventType } from '../events/index.ts';
import { requireProject, type Project } from '../projects/index.ts';
import type { Channel } from './channel.ts';
import { ChannelNotFoundError } from './errors.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { TenantLimiter } from '../ratelimit/index.ts';

export interface ReportEventDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  /** The channel as read within the last few seconds (recent-channels.ts): one read per burst of reports. */
  channels: { get(projectId: string, channelId: string): Promise<Channel | undefined> };
  events: EventPublisher;
  /** The project's reported events a second (`limits.eventsPerSecond`): over it, 429 RATE_LIMITED. */
  limits: Pick<TenantLimiter, 'admit'>;
}

/**
 * A channel back end reports an event (`POST /projects/{p}/events`): within the project's events a
 * second (429 RATE_LIMITED with `Retry-After` over it), the channel must be the project's (404 CHANNEL_NOT_FOUND
 * otherwise, 404 NOT_FOUND for an unknown project); the event is queued and its id returned.
 * Nothing of ours changes but the queue: the 202 comes once the event is on it. With an Idempotency-Key its id is
 * fixed by the key (a retry after a crash publishes the same id again); without one, every request is a new report.
 */
export function makeReportEvent(deps: ReportEventDeps) {
  return async function reportEvent(
    projectId: string,
    input: { channelId: string; type: WebhookEventType; data: Record<string, unknown> },
    /** The request's Idempotency-Key, when it carries one: a retry publishes the same event id. */
    idempotency?: { scope: string; key: string; firstClaimedAt: number },
  ): Promise<{ eventId: string }> {
    await deps.limits.admit(projectId, 'events');
    const channel = await deps.channels.get(projectId, input.channelId);
    if (!channel) {
      await requireProject(deps.projects, projectId);
      throw new ChannelNotFoundError(input.channelId);
    }
    const envelope = await deps.events.publish(
      {
        type: input.type,
        projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: input.data,
      },
      idempotency && {
        key: `report:${idempotency.scope}:${idempotency.key}`,
        at: new Date(idempotency.firstClaimedAt),
      },
    );
    failpoint('after-publish');
    return { eventId: envelope.id };
  };
}

export type ReportEvent = ReturnType<typeof makeReportEvent>;
