import type { Bot } from '../bots/index.ts';

/** File-name patterns (`%` = any run of characters, everything else literal, case-insensitive, whole name). */
export interface FileFilters {
  /** Only files matching one of these are searched; absent or empty = every file. */
  include?: readonly string[];
  /** Files matching one of these are dropped, even when they also match `include`. */
  exclude?: readonly string[];
}

export interface KnowledgeSearchRequest {
  botId: string;
  query: string;
  /** 1..8. */
  topK: number;
  filters?: FileFilters;
  /**
   * The bot as the caller already read it (with `resolveBotForProject`): saves the bot read. Without it the search
   * reads the bot itself. Authorization (403/404) is the caller's job, not the search's.
   */
  bot?: Bot;
}

/** One excerpt of a knowledge file. */
export interface KnowledgeExcerpt {
  text: string;
  /** The file name as uploaded. */
  fileName: string;
  /** 0..1, higher is better. */
  score: number;
}

/**
 * Finds the excerpts of a bot's knowledge that best answer a query, best first, at most `topK`.
 * Never throws for a failing index or store: it logs the failure and returns no excerpts (the contract's
 * "200 with trechos: []"); an unknown bot also yields no excerpts.
 */
export interface KnowledgeSearch {
  search(request: KnowledgeSearchRequest): Promise<KnowledgeExcerpt[]>;
}
