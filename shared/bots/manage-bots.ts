import { NotFoundError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import type { Bot, BotFields, BotPatch, BotStore } from './bot.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

export interface BotDeps {
  bots: BotStore;
  /** Whether the project exists (bots are created inside one). */
  projectExists(projectId: string): Promise<boolean>;
  /** Removes a deleted bot's knowledge (files, excerpts, indexes). */
  purgeKnowledge(botId: string): Promise<void>;
  now?: () => Date;
}

/** Bots in the management API: each belongs to one project; another project's bot answers 404 like a missing one. */
export function makeBotUseCases(deps: BotDeps) {
  const now = deps.now ?? (() => new Date());

  async function requireBot(projectId: string, botId: string): Promise<Bot> {
    const bot = await deps.bots.get(botId);
    if (!bot || bot.projectId !== projectId)
      throw new NotFoundError('bot', `Bot ${botId} does not exist in project ${projectId}.`);
    return bot;
  }

  return {
    requireBot,

    async create(projectId: string, fields: BotFields): Promise<Bot> {
      if (!(await deps.projectExists(projectId)))
        throw new NotFoundError('project', `Project ${projectId} does not exist.`);
      const at = now().toISOString();
      const bot: Bot = {
        botId: newId('bot'),
        projectId,
        name: fields.name,
        instructions: fields.instructions,
        ...(fields.model !== undefined ? { model: fields.model } : {}),
        ...(fields.temperature !== undefined ? { temperature: fields.temperature } : {}),
        createdAt: at,
        updatedAt: at,
        knowledge: { version: 0, segments: [] },
      };
      await deps.bots.create(bot);
      return bot;
    },

    async update(projectId: string, botId: string, patch: BotPatch): Promise<Bot> {
      const bot = await deps.bots.update(projectId, botId, patch, now());
      if (!bot) throw new NotFoundError('bot', `Bot ${botId} does not exist in project ${projectId}.`);
      return bot;
    },

    /** Deletes the bot (Bots API calls answer 404 from now on), then its knowledge. */
    async delete(projectId: string, botId: string): Promise<void> {
      if (!(await deps.bots.delete(projectId, botId)))
        throw new NotFoundError('bot', `Bot ${botId} does not exist in project ${projectId}.`);
      await deps.purgeKnowledge(botId);
    },

    /** A page of the project's bots. */
    async list(projectId: string, page: PageRequest): Promise<Page<Bot>> {
      if (!(await deps.projectExists(projectId)))
        throw new NotFoundError('project', `Project ${projectId} does not exist.`);
      return deps.bots.pageByProject(projectId, page);
    },
  };
}

export type BotUseCases = ReturnType<typeof makeBotUseCases>;
