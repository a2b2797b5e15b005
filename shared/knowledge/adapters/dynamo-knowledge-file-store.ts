import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { IndexState, KnowledgeFile, KnowledgeFileStore, StartUploadOutcome } from '../knowledge-files.ts';
import { collections, inCollection, keys } from '../../contract/keys.ts';
import {
  applied,
  deleteItem,
  type DynamoTable,
  putItem,
  queryAll,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';

/**
 * Knowledge files (`BOT#<botId>` / `FILE#<fileKey>`) and the knowledge state on the bot item (`current` and `live`
 * maps keyed by fileKey, `indexVersion`, `indexKey`, `previousIndexKey`). Generations are time-ordered strings, so
 * "only if mine is newer" is a plain `<` in a condition: concurrent uploads of one name settle on the latest.
 */
export class DynamoKnowledgeFileStore implements KnowledgeFileStore {
  constructor(private readonly table: DynamoTable) {}

  async startUpload(projectId: string, file: KnowledgeFile): Promise<StartUploadOutcome> {
    // The bot first: from here the old generation is out of search and only this one may be published.
    const current = await applied(
      updateItem(this.table, {
        Key: keys.bot(file.botId),
        UpdateExpression: 'SET #current.#k = :g REMOVE #live.#k',
        ConditionExpression: 'projectId = :p AND (attribute_not_exists(#current.#k) OR #current.#k < :g)',
        ExpressionAttributeNames: { '#current': 'current', '#live': 'live', '#k': file.fileKey },
        ExpressionAttributeValues: { ':g': file.generation, ':p': projectId },
      }),
    );
    if (!current) {
      const bot = await readItem(this.table, keys.bot(file.botId), { ProjectionExpression: 'projectId' });
      return bot?.projectId === projectId ? 'superseded' : 'bot-not-found';
    }
    if (
      !(await applied(
        putItem(this.table, {
          Item: { ...keys.knowledgeFile(file.botId, file.fileKey), ...file },
          ConditionExpression: 'attribute_not_exists(generation) OR generation < :g',
          ExpressionAttributeValues: { ':g': file.generation },
        }),
      ))
    )
      return 'superseded';
    return 'started';
  }

  async get(botId: string, fileKey: string): Promise<KnowledgeFile | undefined> {
    const item = await readItem(this.table, keys.knowledgeFile(botId, fileKey));
    return item ? toFile(item) : undefined;
  }

  async list(botId: string): Promise<KnowledgeFile[]> {
    const items = await queryAll(this.table, {
      ...inCollection(collections.knowledgeFiles(botId)),
      ConsistentRead: true,
    });
    return items.map(toFile);
  }

  markReady(
    botId: string,
    fileKey: string,
    generation: string,
    chunks: number,
    at: Date,
    details: { ocrPages?: number; bytes?: number } = {},
  ): Promise<boolean> {
    const extra = Object.entries(details).filter(([, v]) => v !== undefined);
    return this.settle(
      botId,
      fileKey,
      generation,
      `SET #status = :status, chunks = :chunks, updatedAt = :at${extra.map(([k]) => `, #${k} = :${k}`).join('')} REMOVE #error`,
      {
        ':status': 'ready',
        ':chunks': chunks,
        ':at': at.toISOString(),
        ...Object.fromEntries(extra.map(([k, v]) => [`:${k}`, v])),
      },
      Object.fromEntries(extra.map(([k]) => [`#${k}`, k])),
    );
  }

  markFailed(botId: string, fileKey: string, generation: string, reason: string, at: Date): Promise<boolean> {
    return this.settle(
      botId,
      fileKey,
      generation,
      'SET #status = :status, chunks = :chunks, #error = :error, updatedAt = :at',
      {
        ':status': 'failed',
        ':chunks': 0,
        ':error': reason.slice(0, 1000),
        ':at': at.toISOString(),
      },
    );
  }

  private async settle(
    botId: string,
    fileKey: string,
    generation: string,
    update: string,
    values: Record<string, unknown>,
    names: Record<string, string> = {},
  ): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.knowledgeFile(botId, fileKey),
        UpdateExpression: update,
        ConditionExpression: 'generation = :g',
        ExpressionAttributeNames: { ...names, '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: { ...values, ':g': generation },
      }),
    );
  }

  async remove(projectId: string, botId: string, fileKey: string): Promise<KnowledgeFile | undefined> {
    // Out of search first: from this write on, no search shows its excerpts and no rebuild can make it live.
    const outOfSearch = await applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: 'REMOVE #current.#k, #live.#k',
        ConditionExpression: 'projectId = :p',
        ExpressionAttributeNames: { '#current': 'current', '#live': 'live', '#k': fileKey },
        ExpressionAttributeValues: { ':p': projectId },
      }),
    );
    if (!outOfSearch) return undefined;
    const out = await deleteItem(this.table, {
      Key: keys.knowledgeFile(botId, fileKey),
      ReturnValues: 'ALL_OLD',
    });
    return out.Attributes ? toFile(out.Attributes) : undefined;
  }

  async removeAll(botId: string): Promise<KnowledgeFile[]> {
    const files = await this.list(botId);
    for (let i = 0; i < files.length; i += 25) {
      let requests: unknown[] | undefined = files
        .slice(i, i + 25)
        .map((f) => ({ DeleteRequest: { Key: keys.knowledgeFile(botId, f.fileKey) } }));
      for (let attempt = 0; requests?.length && attempt < 5; attempt++) {
        const out: { UnprocessedItems?: Record<string, unknown[]> } = await this.table.client.send(
          new BatchWriteCommand({ RequestItems: { [this.table.tableName]: requests as never } }),
        );
        requests = out.UnprocessedItems?.[this.table.tableName];
      }
    }
    return files;
  }

  async indexState(botId: string): Promise<IndexState | undefined> {
    const item = await readItem(this.table, keys.bot(botId), {
      ProjectionExpression: 'indexVersion, indexKey, previousIndexKey, #current, #live',
      ExpressionAttributeNames: { '#current': 'current', '#live': 'live' },
    });
    if (!item) return undefined;
    return {
      version: (item.indexVersion as number | undefined) ?? 0,
      ...(item.indexKey ? { key: item.indexKey as string } : {}),
      ...(item.previousIndexKey ? { previousKey: item.previousIndexKey as string } : {}),
      current: (item.current as Record<string, string> | undefined) ?? {},
      live: (item.live as Record<string, string> | undefined) ?? {},
    };
  }

  async publishIndex(
    botId: string,
    update: { expectedVersion: number; key: string; previousKey?: string; added: Record<string, string> },
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':v': update.expectedVersion,
      ':next': update.expectedVersion + 1,
      ':key': update.key,
    };
    const sets = ['indexVersion = :next', 'indexKey = :key'];
    const conditions = ['indexVersion = :v'];
    if (update.previousKey) {
      sets.push('previousIndexKey = :previous');
      values[':previous'] = update.previousKey;
    }
    Object.entries(update.added).forEach(([fileKey, generation], i) => {
      names['#current'] = 'current';
      names['#live'] = 'live';
      names[`#k${i}`] = fileKey;
      values[`:g${i}`] = generation;
      sets.push(`#live.#k${i} = :g${i}`);
      conditions.push(`#current.#k${i} = :g${i}`);
    });
    return applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
      }),
    );
  }
}

function toFile(item: Record<string, unknown>): KnowledgeFile {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as KnowledgeFile;
}
