import type { KnowledgeFile, KnowledgeFileStore, Page, StartUploadOutcome } from '../knowledge-files.ts';
import { collections, inCollection, keys } from '../../contract/keys.ts';
import {
  applied,
  deleteItem,
  type DynamoTable,
  putItem,
  queryAll,
  queryPage,
  readItem,
  updateItem,
  writeBatch,
} from '../../kernel/aws/dynamo-table.ts';
import { ValidationError } from '../../kernel/domain-error.ts';

/**
 * Knowledge files, one item each (`BOT#<botId>` / `FILE#<fileName>`), and the file-key → name entries browser
 * uploads need (`FKEY#<fileKey>`). Generations are time-ordered strings, so "only if mine is newer" is a plain `<`
 * in a condition: concurrent uploads of one name settle on the latest. Nothing is written on the bot item: a bot
 * takes as many files as its partition holds.
 */
export class DynamoKnowledgeFileStore implements KnowledgeFileStore {
  constructor(private readonly table: DynamoTable) {}

  async startUpload(file: KnowledgeFile): Promise<StartUploadOutcome> {
    const started = await applied(
      putItem(this.table, {
        Item: { ...keys.knowledgeFile(file.botId, file.fileName), ...file },
        ConditionExpression: 'attribute_not_exists(generation) OR generation < :g',
        ExpressionAttributeValues: { ':g': file.generation },
      }),
    );
    return started ? 'started' : 'superseded';
  }

  async get(botId: string, fileName: string): Promise<KnowledgeFile | undefined> {
    const item = await readItem(this.table, keys.knowledgeFile(botId, fileName));
    return item ? toFile(item) : undefined;
  }

  async page(botId: string, options: { limit: number; cursor?: string }): Promise<Page<KnowledgeFile>> {
    const files = collections.knowledgeFiles(botId);
    const out = await queryPage(this.table, {
      ...inCollection(files),
      Limit: options.limit,
      ConsistentRead: true,
      ExclusiveStartKey: options.cursor
        ? { pk: files.pk, sk: decodeCursor(options.cursor, files.skPrefix) }
        : undefined,
    });
    const items = (out.Items ?? []).map(toFile);
    // DynamoDB may end a full page with a key although nothing follows; one more read would tell, the next page
    // (empty, no cursor) tells as well.
    return out.LastEvaluatedKey
      ? { items, nextCursor: Buffer.from(String(out.LastEvaluatedKey.sk), 'utf8').toString('base64url') }
      : { items };
  }

  async rememberName(botId: string, fileKey: string, fileName: string): Promise<void> {
    await putItem(this.table, { Item: { ...keys.knowledgeFileName(botId, fileKey), fileName } });
  }

  async nameOf(botId: string, fileKey: string): Promise<string | undefined> {
    return (await readItem(this.table, keys.knowledgeFileName(botId, fileKey)))?.fileName as string | undefined;
  }

  markReady(
    botId: string,
    fileName: string,
    generation: string,
    chunks: number,
    at: Date,
    details: { ocrPages?: number; bytes?: number } = {},
  ): Promise<boolean> {
    const extra = Object.entries(details).filter(([, v]) => v !== undefined);
    return this.settle(
      botId,
      fileName,
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

  markFailed(botId: string, fileName: string, generation: string, reason: string, at: Date): Promise<boolean> {
    return this.settle(
      botId,
      fileName,
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
    fileName: string,
    generation: string,
    update: string,
    values: Record<string, unknown>,
    names: Record<string, string> = {},
  ): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.knowledgeFile(botId, fileName),
        UpdateExpression: update,
        ConditionExpression: 'generation = :g',
        ExpressionAttributeNames: { ...names, '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: { ...values, ':g': generation },
      }),
    );
  }

  remove(botId: string, fileName: string, generation: string): Promise<boolean> {
    return applied(
      deleteItem(this.table, {
        Key: keys.knowledgeFile(botId, fileName),
        ConditionExpression: 'generation = :g',
        ExpressionAttributeValues: { ':g': generation },
      }),
    );
  }

  async removeAll(botId: string): Promise<void> {
    for (const collection of [collections.knowledgeFiles(botId), collections.knowledgeFileNames(botId)]) {
      const items = await queryAll(this.table, {
        ...inCollection(collection),
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      });
      for (let i = 0; i < items.length; i += 25)
        await writeBatch(
          this.table,
          items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
        );
    }
  }
}

/** A cursor is the last sort key of the page, only ever accepted inside the same bot's files. */
function decodeCursor(cursor: string, prefix: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!sk.startsWith(prefix) || Buffer.from(sk, 'utf8').toString('base64url') !== cursor)
    throw new ValidationError('The cursor is not one this listing returned.', [
      { path: 'cursor', message: 'Pass the nextCursor of the previous page.', code: 'invalid_format' },
    ]);
  return sk;
}

function toFile(item: Record<string, unknown>): KnowledgeFile {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as KnowledgeFile;
}
