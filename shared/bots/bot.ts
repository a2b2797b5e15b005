import { DomainError } from '../kernel/domain-error.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

/**
 * Where a bot's knowledge stands, as the search needs it in the same read as the bot: the published index (one
 * versioned S3 object) and the generations of the files whose excerpts may be shown. An excerpt in the index whose
 * file generation is not in `liveGenerations` is invisible, which is how a delete or a replacement takes effect at
 * once, before the index is rebuilt.
 */
export interface BotKnowledgeState {
  /** 0 until the first index is published. */
  indexVersion: number;
  /** S3 key of the published index; absent before the first publish. */
  indexKey?: string;
  /** fileKey → generation of the files that are ready and searchable. */
  liveGenerations: Record<string, string>;
}

/** A bot: instructions and knowledge that belong to one project. */
export interface Bot {
  botId: string;
  projectId: string;
  name: string;
  /** System prompt, up to 60,000 characters. */
  instructions: string;
  /** Model id; absent = the deployment's default model. */
  model?: string;
  /** Sampling temperature 0..1; absent = the provider's default. */
  temperature?: number;
  createdAt: string;
  updatedAt: string;
  knowledge: BotKnowledgeState;
}

/** The fields a caller may set on create or change on update. */
export interface BotFields {
  name: string;
  instructions: string;
  model?: string;
  temperature?: number;
}

/** A change to a bot: `null` clears an optional field. */
export interface BotPatch {
  name?: string;
  instructions?: string;
  model?: string | null;
  temperature?: number | null;
}

/**
 * Bots by id. `get` is one strongly consistent read that returns the bot with its project id and knowledge state,
 * so callers tell "another project's bot" (403) from "no such bot" (404) and search needs no second read.
 */
export interface BotStore {
  get(botId: string): Promise<Bot | undefined>;
  create(bot: Bot): Promise<void>;
  /** Applies the patch when the bot exists in `projectId`; the updated bot, or undefined when it does not. */
  update(projectId: string, botId: string, patch: BotPatch, at: Date): Promise<Bot | undefined>;
  /** Deletes the bot when it exists in `projectId`; true when this call deleted it. */
  delete(projectId: string, botId: string): Promise<boolean>;
  /** The project's bots, oldest first. */
  listByProject(projectId: string): Promise<Bot[]>;
  /** A page of the project's bots, in id order. */
  pageByProject(projectId: string, page: PageRequest): Promise<Page<Bot>>;
}

/** The bot a Bots API request names does not exist. */
export class BotNotFoundError extends DomainError {
  readonly code = 'BOT_NOT_FOUND';

  constructor(botId: string) {
    super(`Bot ${botId} does not exist.`);
    this.name = 'BotNotFoundError';
  }
}

/** The bot a Bots API request names exists but belongs to another project than the token's. */
export class BotForbiddenError extends DomainError {
  readonly code = 'BOT_FORBIDDEN';

  constructor(botId: string) {
    super(`Bot ${botId} belongs to another project; this API token cannot use it.`);
    this.name = 'BotForbiddenError';
  }
}

/**
 * Resolves `botId` inside the caller's project, as the Bots API does on completion and search: the bot, or
 * BotNotFoundError (404) when it does not exist, or BotForbiddenError (403) when it belongs to another project.
 */
export async function resolveBotForProject(
  bots: Pick<BotStore, 'get'>,
  botId: string,
  projectId: string,
): Promise<Bot> {
  const bot = await bots.get(botId);
  if (!bot) throw new BotNotFoundError(botId);
  if (bot.projectId !== projectId) throw new BotForbiddenError(botId);
  return bot;
}
