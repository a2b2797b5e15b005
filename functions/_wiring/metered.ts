import type { MessageProvider, MessageProviders } from '#shared/messaging/index.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { metricNames } from '#shared/contract/metrics.ts';

/*
 * Metrics recorded at the ports: each wrapper is the port it wraps, plus one count or timing per call. The use
 * cases stay as they are and know nothing of metrics; the composition roots choose what is measured.
 */

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
