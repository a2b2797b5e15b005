import type { ModelProvider } from './model-provider.ts';

/** A provider and the model id to ask it for (absent: the provider's default for this deployment). */
export interface ResolvedModel {
  provider: ModelProvider;
  model?: string;
}

/**
 * Picks the provider for a bot's `model` spec (see `model-spec.ts`), or the deployment's default provider when the
 * bot names none or there is no bot. Throws a `ModelError('misconfigured')` for a provider this deployment cannot
 * reach (for example `openai:…` with no `OPENAI_BASE_URL`).
 */
export interface ModelRouter {
  resolve(spec: string | undefined): ResolvedModel;
}
