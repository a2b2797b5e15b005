import type { CompletionSource } from './complete-text.ts';

/** One item of the wire's `fontes`: the same list on the native completion and the OpenAI-format route. */
export interface Fonte {
  procedencia: string;
  score: number;
}

/** The sources as the wire names them (Portuguese field names stay at the HTTP edge). */
export function fontes(sources: readonly CompletionSource[]): Fonte[] {
  return sources.map((source) => ({ procedencia: source.fileName, score: source.score }));
}
