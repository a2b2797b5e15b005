import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * Knowledge at help-center scale over HTTP: a burst of uploads, 8 at a time, all accepted and all
 * ingested; the listing pages through them; search finds the last one.
 */
let svc: ServiceClient;

beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

async function newBot(projectId: string) {
  const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Ajuda', instructions: 'x' });
  expect(bot.status).toBe(201);
  return bot.body.botId as string;
}

/** Every file of the bot, walking the pages; and how many pages it took. */
async function allFiles(projectId: string, botId: string, limit: number) {
  const files: { fileName: string; status: string }[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await svc.admin(
      'GET',
      `/projects/${projectId}/bots/${botId}/knowledge?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    files.push(...res.body.items);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { files, pages };
}

const article = (i: number) =>
  `# Artigo ${i}\n\nComo resolver o problema número ${i} da central de ajuda. Código do artigo: kb${i}zx.\n\n` +
  'Passo a passo: abra as configurações, escolha a opção e confirme. '.repeat(3);

describe('knowledge at scale', () => {
  test('a burst of 400 uploads, 8 at a time: every one accepted, every one ready, all listed page by page', async () => {
    const project = await svc.newProject();
    const botId = await newBot(project.projectId);
    const names = Array.from({ length: 400 }, (_, i) => `artigo-${String(i).padStart(4, '0')}.md`);
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < names.length) {
          const i = next++;
          const res = await svc.putKnowledge(project.projectId, botId, names[i]!, article(i));
          statuses.push(res.status);
          expect(res.body).toEqual({ fileName: names[i], status: 'processing' });
        }
      }),
    );
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    await svc.knowledgeReady(project.projectId, botId, names.length);
    const { files, pages } = await allFiles(project.projectId, botId, 100);
    expect(pages).toBe(4);
    expect(files.map((f) => f.fileName)).toEqual(names);
    expect(files.every((f) => f.status === 'ready')).toBe(true);
    const found = await svc.botsApi(project.token, 'search', { botId, query: 'kb399zx', topK: 3 });
    expect(found.status).toBe(200);
    expect(found.body.trechos[0].procedencia).toBe('artigo-0399.md');
  }, 120_000);

  test('the listing validates limit and cursor with the contract code', async () => {
    const project = await svc.newProject();
    const botId = await newBot(project.projectId);
    const path = `/projects/${project.projectId}/bots/${botId}/knowledge`;
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-ours', 'other=1']) {
      const res = await svc.admin('GET', `${path}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toBe('VALIDATION_ERROR');
    }
    const empty = await svc.admin('GET', `${path}?limit=100`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
  });
});
