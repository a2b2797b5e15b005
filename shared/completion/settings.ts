import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Bounds of what one request may ask of a model. */
export const completionSettings = declareSettings({
  /**
   * Largest output a model is asked for: a caller's `max_tokens` / `max_completion_tokens` / `max_output_tokens`
   * above it is clamped to it, so one credit buys a bounded answer (docs/reference/limits.md).
   */
  BOT_MAX_OUTPUT_TOKENS: z._default(positiveInt(1_000_000), 4096),
});

export type CompletionSettings = ReturnType<typeof completionSettings.read>;
