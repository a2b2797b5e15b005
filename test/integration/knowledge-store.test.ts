import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DynamoBotStore } from '#shared/bots/adapters/dynamo-bot-store.ts';
import { DynamoKnowledgeFileStore } from '#shared/knowledge/adapters/dynamo-knowledge-file-store.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Bot } from '#shared/bots/bot.ts';
import {
  fileKeyOf,
  knowledgeObjectKeys,
  newGeneration,
  type KnowledgeFile,
} from '#shared/knowledge/knowledge-files.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/** The bot and knowledge-file adapters against dynalite: the conditional writes that replace transactions. */
let table: DynamoTable;
let close: () => Promise<void>;
beforeAll(async () => ({ table, close } = await startTestTable()));
afterAll(async () => close?.());

const newBot = (botId: string, projectId = 'prj_a'): Bot => ({
  botId,
  projectId,
  name: 'Bot',
  instructions: 'x',
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  knowledge: { indexVersion: 0, liveGenerations: {} },
});

const file = (botId: string, fileName: string, generation: string): KnowledgeFile => ({
  botId,
  fileName,
  fileKey: fileKeyOf(fileName),
  generation,
  status: 'processing',
  chunks: 0,
  contentType: 'text/plain',
  bytes: 1,
  objectKey: knowledgeObjectKeys.upload(botId, generation),
  uploadedAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

describe('DynamoBotStore', () => {
  test('get returns the project and knowledge state; update and delete only inside the project', async () => {
    const bots = new DynamoBotStore(table);
    await bots.create(newBot('bot_1'));
    await bots.create(newBot('bot_2', 'prj_b'));
    expect(await bots.get('bot_1')).toMatchObject({
      botId: 'bot_1',
      projectId: 'prj_a',
      knowledge: { indexVersion: 0, liveGenerations: {} },
    });
    expect(await bots.get('bot_nope')).toBeUndefined();
    expect(await bots.update('prj_b', 'bot_1', { name: 'x' }, new Date())).toBeUndefined();
    const updated = await bots.update('prj_a', 'bot_1', { name: 'Novo', temperature: 0.5 }, new Date());
    expect(updated).toMatchObject({ name: 'Novo', temperature: 0.5 });
    expect((await bots.update('prj_a', 'bot_1', { temperature: null }, new Date()))!.temperature).toBeUndefined();
    expect((await bots.listByProject('prj_a')).map((b) => b.botId)).toEqual(['bot_1']);
    expect(await bots.delete('prj_b', 'bot_1')).toBe(false);
    expect(await bots.delete('prj_a', 'bot_1')).toBe(true);
    expect(await bots.get('bot_1')).toBeUndefined();
    expect(await bots.listByProject('prj_a')).toEqual([]);
  });
});

describe('DynamoKnowledgeFileStore', () => {
  test('uploads, publish conditions, delete and listing', async () => {
    const bots = new DynamoBotStore(table);
    const files = new DynamoKnowledgeFileStore(table);
    await bots.create(newBot('bot_k'));
    const t0 = new Date('2026-01-01T00:00:00Z');
    const g1 = newGeneration(t0);
    const g2 = newGeneration(new Date(t0.getTime() + 1000));
    const name = 'Política de "reembolso" #1.md';
    const key = fileKeyOf(name);

    expect(await files.startUpload('prj_other', file('bot_k', name, g1))).toBe('bot-not-found');
    expect(await files.startUpload('prj_a', file('bot_nope', name, g1))).toBe('bot-not-found');
    expect(await files.startUpload('prj_a', file('bot_k', name, g2))).toBe('started');
    // An older upload arriving late loses to the newer one, on the bot and on the file record.
    expect(await files.startUpload('prj_a', file('bot_k', name, g1))).toBe('superseded');
    expect((await files.get('bot_k', key))!.generation).toBe(g2);

    // Publishing the stale generation is refused; the current one goes live with the new index.
    expect(await files.publishIndex('bot_k', { expectedVersion: 0, key: 'idx/1', added: { [key]: g1 } })).toBe(false);
    expect(await files.publishIndex('bot_k', { expectedVersion: 0, key: 'idx/1', added: { [key]: g2 } })).toBe(true);
    expect(await files.publishIndex('bot_k', { expectedVersion: 0, key: 'idx/1b', added: {} })).toBe(false); // version moved on
    expect((await bots.get('bot_k'))!.knowledge).toEqual({
      indexVersion: 1,
      indexKey: 'idx/1',
      liveGenerations: { [key]: g2 },
    });
    expect(await files.markReady('bot_k', key, g1, 3, new Date())).toBe(false);
    expect(await files.markReady('bot_k', key, g2, 3, new Date())).toBe(true);
    expect((await files.list('bot_k')).map((f) => [f.fileName, f.status, f.chunks])).toEqual([[name, 'ready', 3]]);

    // A rebuild keeps the previous key for cleanup.
    expect(
      await files.publishIndex('bot_k', { expectedVersion: 1, key: 'idx/2', previousKey: 'idx/1', added: {} }),
    ).toBe(true);
    expect(await files.indexState('bot_k')).toEqual({
      version: 2,
      key: 'idx/2',
      previousKey: 'idx/1',
      current: { [key]: g2 },
      live: { [key]: g2 },
    });

    // Delete: out of search at once, record gone; from another project nothing happens.
    expect(await files.remove('prj_other', 'bot_k', key)).toBeUndefined();
    expect((await files.remove('prj_a', 'bot_k', key))!.generation).toBe(g2);
    expect((await bots.get('bot_k'))!.knowledge.liveGenerations).toEqual({});
    expect(await files.list('bot_k')).toEqual([]);
    expect(await files.remove('prj_a', 'bot_k', key)).toBeUndefined();

    // Failure with a reason; removeAll empties the bot's files.
    const g3 = newGeneration(new Date(t0.getTime() + 2000));
    expect(await files.startUpload('prj_a', file('bot_k', 'x.pdf', g3))).toBe('started');
    expect(await files.markFailed('bot_k', fileKeyOf('x.pdf'), g3, 'The PDF is corrupt.', new Date())).toBe(true);
    expect(await files.get('bot_k', fileKeyOf('x.pdf'))).toMatchObject({
      status: 'failed',
      error: 'The PDF is corrupt.',
      chunks: 0,
    });
    expect((await files.removeAll('bot_k')).map((f) => f.fileName)).toEqual(['x.pdf']);
    expect(await files.list('bot_k')).toEqual([]);
  });
});
