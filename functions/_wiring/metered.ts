import type { MessageProvider, MessageProviders } from '#shared/messaging/index.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import type { RateLimiter } from '#shared/ratelimit/gcra.ts';
import type { WebhookSender } from '#shared/webhooks/ports.ts';

/*
 * Metrics recorded at the ports: each wrapper is the port it wraps, plus one count or timing per call. The use
 * cases stay as they are and know nothing of metrics; the composition roots choose what is measured.
 */

/** Requests the per-token rate limit refused. */
export function meteredRateLimiter(limiter: RateLimiter, metrics: Metrics): RateLimiter {
  return {
    async admit(key, now) {
      const decision = await limiter.admit(key, now);
      if (!decision.allowed) metrics.count(metricNames.rateLimitRejections);
      return decision;
    },
  };
}

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

/** Each send by provider kind and outcome (sent, failed). */
export function meteredProviders(providers: MessageProviders, metrics: Metrics): MessageProviders {
  const metered = (kind: string, provider: MessageProvider): MessageProvider => ({
    async send(outbound) {
      try {
        const receipt = await provider.send(outbound);
        metrics.count(metricNames.sends, 1, { provider: kind, outcome: 'sent' });
        return receipt;
      } catch (error) {
        metrics.count(metricNames.sends, 1, { provider: kind, outcome: 'failed' });
        throw error;
      }
    },
  });
  return Object.fromEntries(
    Object.entries(providers).map(([kind, provider]) => [kind, metered(kind, provider)]),
  ) as MessageProviders;
}
