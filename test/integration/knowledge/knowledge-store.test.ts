import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DynamoBotStore } from '#shared/bots/index.ts';
import type { Bot } from '#shared/bots/index.ts';
import { keys } from '#shared/contract/keys.ts';
import { type DynamoTable, updateItem } from '#shared/kernel/aws/dynamo-table.ts';
import { DynamoKnowledgeFileStore } from '#shared/knowledge/adapters/dynamo-knowledge-file-store.ts';
import { DynamoKnowledgeIndexStore } from '#shared/knowledge/adapters/dynamo-knowledge-index-store.ts';
import {
  fileKeyOf,
  type KnowledgeFile,
  knowledgeObjectKeys,
  newGeneration,
} from '#shared/knowledge/knowledge-files.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/** The bot and knowledge adapters against dynalite: conditional writes, the segment map, paging by name. */
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
  knowledge: { version: 0, segments: [] },
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

const ref = (id: string, excerpts = 1) => ({
  id,
  key: `bots/x/segments/${id}.sbks`,
  docs: 1,
  excerpts,
  markers: 0,
  bytes: 10,
});

describe('DynamoBotStore', () => {
  test('get returns the project and knowledge state; update and delete only inside the project', async () => {
    const bots = new DynamoBotStore(table);
    await bots.create(newBot('bot_1'));
    await bots.create(newBot('bot_2', 'prj_b'));
    expect(await bots.get('bot_1')).toMatchObject({
      botId: 'bot_1',
      projectId: 'prj_a',
      knowledge: { version: 0, segments: [] },
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
  test('uploads settle on the newest generation; ready and failed only for the current one; delete by generation', async () => {
    const files = new DynamoKnowledgeFileStore(table);
    const t0 = new Date('2026-01-01T00:00:00Z');
    const g1 = newGeneration(t0);
    const g2 = newGeneration(new Date(t0.getTime() + 1000));
    const name = 'Política de "reembolso" #1.md';

    expect(await files.startUpload(file('bot_k', name, g2))).toBe('started');
    // An older upload arriving late loses to the newer one.
    expect(await files.startUpload(file('bot_k', name, g1))).toBe('superseded');
    expect((await files.get('bot_k', name))!.generation).toBe(g2);
    expect(await files.markReady('bot_k', name, g1, 3, new Date())).toBe(false);
    expect(await files.markReady('bot_k', name, g2, 3, new Date(), { bytes: 42 })).toBe(true);
    expect(await files.get('bot_k', name)).toMatchObject({ status: 'ready', chunks: 3, bytes: 42 });
    expect(await files.markFailed('bot_k', name, g2, 'The PDF is corrupt.', new Date())).toBe(true);
    expect(await files.get('bot_k', name)).toMatchObject({ status: 'failed', error: 'The PDF is corrupt.', chunks: 0 });

    // The file key of a browser upload leads back to the name.
    await files.rememberName('bot_k', fileKeyOf(name), name);
    expect(await files.nameOf('bot_k', fileKeyOf(name))).toBe(name);
    expect(await files.nameOf('bot_k', fileKeyOf('other'))).toBeUndefined();

    expect(await files.remove('bot_k', name, g1)).toBe(false); // a newer upload is recorded: it stays
    expect(await files.remove('bot_k', name, g2)).toBe(true);
    expect(await files.get('bot_k', name)).toBeUndefined();

    await files.startUpload(file('bot_k', 'x.pdf', g1));
    await files.removeAll('bot_k');
    expect((await files.page('bot_k', { limit: 10 })).items).toEqual([]);
    expect(await files.nameOf('bot_k', fileKeyOf(name))).toBeUndefined();
  });

  test('pages walk every file by name, past the first page, each once; a foreign cursor is refused', async () => {
    const files = new DynamoKnowledgeFileStore(table);
    const names = Array.from(
      { length: 250 },
      (_, i) => `artigo-${String(i).padStart(4, '0')}${i % 7 === 0 ? ' é' : ''}.md`,
    );
    for (const n of [...names].reverse()) await files.startUpload(file('bot_p', n, newGeneration(new Date())));
    await files.startUpload(file('bot_other', 'zzz.md', newGeneration(new Date())));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await files.page('bot_p', { limit: 100, ...(cursor ? { cursor } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(100);
      seen.push(...page.items.map((f) => f.fileName));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...names].sort());
    await expect(
      files.page('bot_p', { limit: 10, cursor: Buffer.from('BOT#bot_other').toString('base64url') }),
    ).rejects.toThrow(/cursor/);
  });
});

describe('DynamoKnowledgeIndexStore', () => {
  test('segments are added without conflicts, merged only while all inputs are listed; the merge lease is exclusive', async () => {
    const bots = new DynamoBotStore(table);
    const index = new DynamoKnowledgeIndexStore(table);
    await bots.create(newBot('bot_s'));
    expect(await index.addSegment('bot_nope', ref('a'))).toBe(false);
    await Promise.all(['s1', 's2', 's3', 's4'].map((id) => index.addSegment('bot_s', ref(id))));
    const bot = await bots.get('bot_s');
    expect(bot!.knowledge.segments.map((s) => s.id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(bot!.knowledge.version).toBe(4);

    expect(await index.replaceSegments('bot_s', [ref('s1'), ref('s2')], ref('m1', 2), 1000)).toBe(true);
    // A second merge of an input already merged away is refused, and changes nothing.
    expect(await index.replaceSegments('bot_s', [ref('s2'), ref('s3')], ref('m2', 2), 1000)).toBe(false);
    const state = await index.state('bot_s');
    expect(state!.segments.map((s) => s.id)).toEqual(['m1', 's3', 's4']);
    expect(state!.retired).toEqual({ [ref('s1').key]: 1000, [ref('s2').key]: 1000 });
    await index.forgetRetired('bot_s', [ref('s1').key]);
    expect(Object.keys((await index.state('bot_s'))!.retired)).toEqual([ref('s2').key]);

    expect(await index.claimMerge('bot_s', 5000, 6000)).toBe(true);
    expect(await index.claimMerge('bot_s', 5500, 6500)).toBe(false);
    expect(await index.claimMerge('bot_s', 6001, 7000)).toBe(true); // the first holder's lease ran out
    await index.releaseMerge('bot_s');
    expect(await index.claimMerge('bot_s', 6002, 7000)).toBe(true);
  });

  test('a bot made before segments (no segment map) gets one on its first segment', async () => {
    const bots = new DynamoBotStore(table);
    const index = new DynamoKnowledgeIndexStore(table);
    await bots.create(newBot('bot_old'));
    await updateItem(table, { Key: keys.bot('bot_old'), UpdateExpression: 'REMOVE ksegs, kretired, kver' });
    expect((await bots.get('bot_old'))!.knowledge).toEqual({ version: 0, segments: [] });
    expect(await index.addSegment('bot_old', ref('s1'))).toBe(true);
    expect(await index.replaceSegments('bot_old', [ref('s1')], ref('m1'), 5)).toBe(true);
    expect((await bots.get('bot_old'))!.knowledge.segments.map((s) => s.id)).toEqual(['m1']);
  });
});
