import { DomainError } from '../kernel/domain-error.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

/** One segment of a bot's search index: an immutable S3 object (see shared/knowledge/index/segment.ts). */
export interface KnowledgeSegmentRef {
  /** Time-ordered: a later segment has a greater id. */
  id: string;
  /** S3 key of the segment object. */
  key: string;
  /** Documents (file versions), excerpts and delete markers it holds, and its compressed size. */
  docs: number;
  excerpts: number;
  markers: number;
  bytes: number;
  /** Its object's format (absent: format 3, written before segments were read by range). */
  format?: number;
}

/**
 * Where a bot's knowledge stands, as the search needs it in the same read as the bot: the segments of its index.
 * Which file versions are searchable follows from the segments alone (the newest generation of each file that no
 * delete marker covers), so this one small read is a consistent state: a file is in it whole or not at all.
 * The list stays short (segments are merged in the background), whatever the number of files.
 */
export interface BotKnowledgeState {
  /** Counts changes to the segment list (0 before the first). */
  version: number;
  segments: KnowledgeSegmentRef[];
}

/** A stored segment map (id → ref without its id), as a list in id order. */
export function segmentRefs(map: unknown): KnowledgeSegmentRef[] {
  return Object.entries((map as Record<string, Omit<KnowledgeSegmentRef, 'id'>> | undefined) ?? {})
    .map(([id, ref]) => ({
      id,
      key: ref.key,
      docs: Number(ref.docs ?? 0),
      excerpts: Number(ref.excerpts ?? 0),
      markers: Number(ref.markers ?? 0),
      bytes: Number(ref.bytes ?? 0),
      ...(ref.format ? { format: Number(ref.format) } : {}),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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
