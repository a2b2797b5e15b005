import { metricNames } from '../../contract/metrics.ts';
import type { Metrics } from '../../kernel/metrics.ts';
import type { WebhookSender } from '../ports.ts';

/** Each webhook attempt by outcome (success, http-error, timeout, network, forbidden), with its latency. */
export function meteredWebhookSender(sender: WebhookSender, metrics: Metrics): WebhookSender {
  return {
    async send(request) {
      const outcome = await sender.send(request);
      metrics.count(metricNames.webhookAttempts, 1, { outcome: outcome.kind });
      metrics.milliseconds(metricNames.webhookAttemptLatency, outcome.durationMs, { outcome: outcome.kind });
      return outcome;
    },
  };
}
