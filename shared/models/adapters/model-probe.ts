import type { Config } from '../../kernel/config.ts';
import type { DependencyProbe } from '../../health/index.ts';

/**
 * The model provider answers without generating anything:
 * - offline: the local generator is in-process, always available;
 * - openai: `GET {OPENAI_BASE_URL}/models` (free on OpenAI, Ollama, vLLM and llama.cpp servers);
 * - bedrock: `CountTokens` on the configured model (no generation, no charge), loaded lazily so functions that
 *   never probe Bedrock do not bundle its client.
 */
export function modelProbe(
  cfg: Config,
  options: { /** When the key comes from Secrets Manager (OPENAI_API_KEY_SECRET_ARN). */ openAiApiKey?: string } = {},
): DependencyProbe {
  const openAiApiKey = options.openAiApiKey ?? cfg.OPENAI_API_KEY;
  switch (cfg.modelProvider) {
    case 'offline':
      return { name: 'model provider', probe: async () => {} };
    case 'openai':
      return {
        name: 'model provider',
        async probe(signal) {
          if (!cfg.OPENAI_BASE_URL) throw new Error('OPENAI_BASE_URL is not set');
          const response = await fetch(`${cfg.OPENAI_BASE_URL.replace(/\/$/, '')}/models`, {
            headers: openAiApiKey ? { authorization: `Bearer ${openAiApiKey}` } : {},
            signal,
          });
          await response.body?.cancel();
          if (!response.ok) throw new Error(`model server answered HTTP ${response.status}`);
        },
      };
    case 'bedrock':
      return {
        name: 'model provider',
        async probe(signal) {
          const [{ CountTokensCommand }, { bedrockRuntimeClient }] = await Promise.all([
            import('@aws-sdk/client-bedrock-runtime'),
            import('./bedrock-model.ts'),
          ]);
          // The same client settings as generation (HTTP/1.1, no retries, a timeout that throws).
          const client = bedrockRuntimeClient({ region: cfg.AWS_REGION, requestTimeoutMs: 5_000 });
          try {
            await client.send(
              new CountTokensCommand({
                modelId: cfg.BEDROCK_MODEL_ID,
                input: { converse: { messages: [{ role: 'user', content: [{ text: 'ping' }] }] } },
              }),
              { abortSignal: signal },
            );
          } catch (error) {
            throw new Error(`Bedrock model ${cfg.BEDROCK_MODEL_ID} unavailable: ${(error as Error).name}`, {
              cause: error,
            });
          } finally {
            client.destroy();
          }
        },
      };
  }
}
