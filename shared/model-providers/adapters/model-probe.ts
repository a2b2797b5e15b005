import type { DependencyProbe } from '../../health/index.ts';
import type { DeploymentModels } from './deployment-model-router.ts';

/**
 * The deployment's default model provider answers without generating anything:
 * - offline: the local generator is in-process, always available;
 * - openai: `GET {OPENAI_BASE_URL}/models` (free on OpenAI, Ollama, vLLM and llama.cpp servers);
 * - bedrock: `CountTokens` on the configured model (no generation, no charge), its client loaded on the first probe.
 */
export function modelProbe(models: DeploymentModels): DependencyProbe {
  switch (models.defaultProvider) {
    case 'offline':
      return { name: 'model provider', probe: async () => {} };
    case 'openai': {
      const { baseUrl, apiKey } = models.openAi;
      return {
        name: 'model provider',
        async probe(signal) {
          if (!baseUrl) throw new Error('OPENAI_BASE_URL is not set');
          const response = await fetch(`${baseUrl.replace(/\/$/, '')}/models`, {
            headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
            signal,
          });
          await response.body?.cancel();
          if (!response.ok) throw new Error(`model server answered HTTP ${response.status}`);
        },
      };
    }
    case 'bedrock':
      return {
        name: 'model provider',
        async probe(signal) {
          const [{ CountTokensCommand }, { bedrockRuntimeClient }] = await Promise.all([
            import('@aws-sdk/client-bedrock-runtime'),
            import('./bedrock-client.ts'),
          ]);
          // The same client settings as generation (HTTP/1.1, no retries, a timeout that throws).
          const client = bedrockRuntimeClient({ region: models.region, requestTimeoutMs: 5_000 });
          try {
            await client.send(
              new CountTokensCommand({
                modelId: models.bedrockModelId,
                input: { converse: { messages: [{ role: 'user', content: [{ text: 'ping' }] }] } },
              }),
              { abortSignal: signal },
            );
          } catch (error) {
            throw new Error(`Bedrock model ${models.bedrockModelId} unavailable: ${(error as Error).name}`, {
              cause: error,
            });
          } finally {
            client.destroy();
          }
        },
      };
  }
}
