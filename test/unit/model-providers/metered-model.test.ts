import { describe, expect, it } from 'vitest';
import { metricNames } from '#shared/contract/metrics.ts';
import { meteredModelRouter } from '#shared/model-providers/adapters/metered-model.ts';
import type { ModelProvider, ModelRequest } from '#shared/models/index.ts';
import { recordingMetrics } from '#test/support/recording-metrics.ts';

describe('metered model calls: what an operator sees counted is what happened', () => {
  it('counts model tokens by provider, streamed or not, and a stream cut short as failed', async () => {
    const { metrics, totals } = recordingMetrics();
    const provider: ModelProvider = {
      name: 'offline',
      generate: async () => ({ text: 'hi', model: 'offline:x', usage: { inputTokens: 10, outputTokens: 2 } }),
      async *stream() {
        yield { type: 'text', text: 'h' };
        yield { type: 'text', text: 'i' };
        yield { type: 'end', model: 'offline:x', usage: { inputTokens: 7, outputTokens: 3 } };
      },
    };
    const router = meteredModelRouter({ resolve: () => ({ provider }) }, metrics);
    const { provider: metered } = router.resolve(undefined);
    const request = {} as ModelRequest;
    await metered.generate(request);
    for await (const _ of metered.stream(request)) {
      // read to the end
    }
    for await (const event of metered.stream(request)) {
      if (event.type === 'text') break; // the caller went away
    }
    expect(totals()).toEqual({
      [`${metricNames.modelLatency}{provider=offline,outcome=answered}`]: 2,
      [`${metricNames.modelLatency}{provider=offline,outcome=failed}`]: 1,
      [`${metricNames.modelInputTokens}{provider=offline}`]: 17,
      [`${metricNames.modelOutputTokens}{provider=offline}`]: 5,
    });
  });
});
