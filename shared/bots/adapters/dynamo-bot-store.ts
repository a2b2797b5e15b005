import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { type Bot, type BotPatch, type BotStore, segmentRefs } from '../bot.ts';
import {
  applied,
  conditionalWrite,
  deleteItem,
  type DynamoTable,
  putItem,
  queryAll,
  queryPageOf,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';

const BOT_ATTRIBUTES = [
  'botId',
  'projectId',
  '#name',
  'instructions',
  'model',
  'temperature',
  'createdAt',
  'updatedAt',
  'kver',
  'ksegs',
];
const BOT_ATTRIBUTE_NAMES = { '#name': 'name' };

/**
 * Bots in DynamoDB: the bot item, keyed by bot id, and the project's listing entry for it (layouts in `keys.ts`).
 */
export class DynamoBotStore implements BotStore {
  constructor(private readonly table: DynamoTable) {}

  async get(botId: string): Promise<Bot | undefined> {
    const item = await readItem(this.table, keys.bot(botId), {
      ProjectionExpression: BOT_ATTRIBUTES.join(', '),
      ExpressionAttributeNames: BOT_ATTRIBUTE_NAMES,
    });
    return item ? toBot(item) : undefined;
  }

  async create(bot: Bot): Promise<void> {
    // Listing entry first: an entry whose bot write failed is skipped by listings; a bot without one would be lost.
    await putItem(this.table, {
      Item: { ...keys.botEntry(bot.projectId, bot.botId), botId: bot.botId },
    });
    await putItem(this.table, {
      Item: {
        ...keys.bot(bot.botId),
        botId: bot.botId,
        projectId: bot.projectId,
        name: bot.name,
        instructions: bot.instructions,
        model: bot.model,
        temperature: bot.temperature,
        createdAt: bot.createdAt,
        updatedAt: bot.updatedAt,
        // The knowledge state (shared/knowledge/adapters/dynamo-knowledge-index-store.ts writes it from here on).
        kver: bot.knowledge.version,
        ksegs: Object.fromEntries(bot.knowledge.segments.map(({ id, ...ref }) => [id, ref])),
        kretired: {},
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async update(projectId: string, botId: string, patch: BotPatch, at: Date): Promise<Bot | undefined> {
    const sets: string[] = ['updatedAt = :updatedAt'];
    const removes: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':updatedAt': at.toISOString(), ':projectId': projectId };
    if (patch.name !== undefined) {
      sets.push('#name = :name');
      names['#name'] = 'name';
      values[':name'] = patch.name;
    }
    if (patch.instructions !== undefined) {
      sets.push('instructions = :instructions');
      values[':instructions'] = patch.instructions;
    }
    for (const field of ['model', 'temperature'] as const) {
      const value = patch[field];
      if (value === null) removes.push(field);
      else if (value !== undefined) {
        sets.push(`${field} = :${field}`);
        values[`:${field}`] = value;
      }
    }
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'projectId = :projectId',
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return write.applied && write.output.Attributes ? toBot(write.output.Attributes) : undefined;
  }

  async delete(projectId: string, botId: string): Promise<boolean> {
    if (
      !(await applied(
        deleteItem(this.table, {
          Key: keys.bot(botId),
          ConditionExpression: 'projectId = :projectId',
          ExpressionAttributeValues: { ':projectId': projectId },
        }),
      ))
    )
      return false;
    await deleteItem(this.table, { Key: keys.botEntry(projectId, botId) });
    return true;
  }

  async listByProject(projectId: string): Promise<Bot[]> {
    const entries = await queryAll(this.table, inCollection(collections.botEntries(projectId)));
    const bots = await this.readBots(
      projectId,
      entries.map((item) => item.botId as string),
    );
    return bots.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.botId.localeCompare(b.botId));
  }

  async pageByProject(projectId: string, page: PageRequest): Promise<Page<Bot>> {
    const collection = collections.botEntries(projectId);
    const entries = await queryPageOf(this.table, inCollection(collection), page, pageKeyOf(collection));
    const ids = entries.items.map((item) => item.botId as string);
    const byId = new Map((await this.readBots(projectId, ids)).map((bot) => [bot.botId, bot]));
    // A bot deleted between the two reads is left out of its page.
    return { ...entries, items: ids.flatMap((id) => byId.get(id) ?? []) };
  }

  /** The bots of `projectId` among `ids` (BatchGetItem, 100 keys per call), in no particular order. */
  private async readBots(projectId: string, ids: string[]): Promise<Bot[]> {
    const bots: Bot[] = [];
    for (let i = 0; i < ids.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map((id) => keys.bot(id));
      for (let attempt = 0; pending?.length && attempt < 5; attempt++) {
        const out = await this.table.client.send(
          new BatchGetCommand({
            RequestItems: {
              [this.table.tableName]: {
                Keys: pending,
                ConsistentRead: true,
                ProjectionExpression: BOT_ATTRIBUTES.join(', '),
                ExpressionAttributeNames: BOT_ATTRIBUTE_NAMES,
              },
            },
          }),
        );
        for (const item of out.Responses?.[this.table.tableName] ?? []) {
          const bot = toBot(item);
          if (bot.projectId === projectId) bots.push(bot);
        }
        pending = out.UnprocessedKeys?.[this.table.tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return bots;
  }
}

function toBot(item: Record<string, unknown>): Bot {
  return {
    botId: item.botId as string,
    projectId: item.projectId as string,
    name: item.name as string,
    instructions: item.instructions as string,
    ...(item.model !== undefined ? { model: item.model as string } : {}),
    ...(item.temperature !== undefined ? { temperature: item.temperature as number } : {}),
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
    knowledge: {
      version: (item.kver as number | undefined) ?? 0,
      segments: segmentRefs(item.ksegs),
    },
  };
}
