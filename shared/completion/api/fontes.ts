import type { CompletionSource } from '../completion.ts';

/** One item of the wire's `fontes`: the native `/completion` and the OpenAI-format routes send the same list. */
export interface Fonte {
  procedencia: string;
  score: number;
}

/** The sources under their wire names, in the same order (best first). */
export const fontesOf = (sources: readonly CompletionSource[]): Fonte[] =>
  sources.map((source) => ({ procedencia: source.fileName, score: source.score }));
