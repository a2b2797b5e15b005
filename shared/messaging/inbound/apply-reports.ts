import type { Channel } from '../channel.ts';
import type { ApplyReportsDeps, ReportedEvent, SandboxStatusReport } from './apply-ports.ts';
import { makeApplyReceived } from './apply-received.ts';
import { makeApplyStatus } from './apply-status.ts';
import { makeSuppressionSteps } from './apply-suppression.ts';
import { makeMarkedEvents } from './marked-events.ts';
import type { NormalisedReport } from './report.ts';

/**
 * Steps 3 and 4 of the inbound worker's use case (./process-inbound.ts): normalised reports applied to a channel, in
 * order, and the events published. Also what the sandbox's simulation routes call, so a simulated reply or receipt
 * goes the same way.
 *
 * Each change writes its event's mark in the same conditional write, then publishes, then clears the
 * mark. A report whose change is found already applied publishes again what is still marked for it (a crash came
 * between the write and the publish: same event id), and nothing otherwise (a provider's retry, a stale status).
 */
export function makeApplyReports(deps: ApplyReportsDeps) {
  const withClock = { ...deps, now: deps.now ?? (() => new Date()) };
  const marks = makeMarkedEvents(withClock);
  const suppressions = makeSuppressionSteps(withClock, marks);
  const received = makeApplyReceived(withClock, marks, suppressions);
  const status = makeApplyStatus(withClock, marks);

  return async function apply(
    channel: Channel,
    items: (NormalisedReport | SandboxStatusReport)[],
  ): Promise<ReportedEvent[]> {
    const published: ReportedEvent[] = [];
    for (const item of items) {
      const events =
        item.kind === 'message'
          ? await received(channel, item)
          : item.kind === 'suppression'
            ? await suppressions.providerSuppression(channel, item)
            : await status(channel, item);
      published.push(...events);
    }
    return published;
  };
}
