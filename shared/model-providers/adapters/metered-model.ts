import { metricNames } from '../../contract/metrics.ts';
import type { Metrics } from '../../kernel/metrics.ts';
import type { ModelProvider, ModelStreamEvent } from '../../models/index.ts';
import type { ModelRouter } from '../../models/index.ts';

/** Model calls by provider: latency (with outcome) and tokens in and out, streamed or not. */
export function meteredModelRouter(router: ModelRouter, metrics: Metrics): ModelRouter {
  return {
    resolve(spec) {
      const resolved = router.resolve(spec);
      return { ...resolved, provider: meteredModel(resolved.provider, metrics) };
    },
  };
}

function meteredModel(provider: ModelProvider, metrics: Metrics): ModelProvider {
  const dimensions = { provider: provider.name };
  const finished = (
    startedAt: number,
    outcome: 'answered' | 'failed',
    usage?: { inputTokens: number; outputTokens: number },
  ) => {
    metrics.milliseconds(metricNames.modelLatency, Date.now() - startedAt, { ...dimensions, outcome });
    if (usage) {
      metrics.count(metricNames.modelInputTokens, usage.inputTokens, dimensions);
      metrics.count(metricNames.modelOutputTokens, usage.outputTokens, dimensions);
    }
  };
  return {
    name: provider.name,
    async generate(request) {
      const startedAt = Date.now();
      try {
        const reply = await provider.generate(request);
        finished(startedAt, 'answered', reply.usage);
        return reply;
      } catch (error) {
        finished(startedAt, 'failed');
        throw error;
      }
    },
    async *stream(request): AsyncIterable<ModelStreamEvent> {
      const startedAt = Date.now();
      let ended = false;
      try {
        for await (const event of provider.stream(request)) {
          if (event.type === 'end') {
            ended = true;
            finished(startedAt, 'answered', event.usage);
          }
          yield event;
        }
      } finally {
        if (!ended) finished(startedAt, 'failed');
      }
    },
  };
}
