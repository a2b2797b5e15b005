import { metricNames } from '../../contract/metrics.ts';
import type { Metrics } from '../../kernel/metrics.ts';
import { LateDepartureError, type MessageProvider, type MessageProviders } from '../providers.ts';

/**
 * The providers, each counting its sends by provider kind and outcome (sent, failed): the port it wraps plus one count
 * per call, so the send use case knows nothing of metrics.
 */
export function meteredProviders(providers: MessageProviders, metrics: Metrics): MessageProviders {
  const metered = (kind: string, provider: MessageProvider): MessageProvider => ({
    async send(outbound) {
      try {
        const receipt = await provider.send(outbound);
        metrics.count(metricNames.sends, 1, { provider: kind, outcome: 'sent' });
        return receipt;
      } catch (error) {
        // A paced send late at its slot reached no provider: neither sent nor failed.
        if (!(error instanceof LateDepartureError))
          metrics.count(metricNames.sends, 1, { provider: kind, outcome: 'failed' });
        throw error;
      }
    },
  });
  return Object.fromEntries(
    Object.entries(providers).map(([kind, provider]) => [kind, metered(kind, provider)]),
  ) as MessageProviders;
}
