import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import type { IngestJob } from '#shared/knowledge/knowledge-files.ts';
import { makeKnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { embeddingsFromSettings, modelSettings } from '#shared/model-providers/index.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';

/** The deployment's OpenAI-compatible embeddings model, as the functions build it from EMBEDDINGS_* settings. */
const openAiEmbeddings = (baseUrl: string, apiKey?: string) =>
  embeddingsFromSettings(
    { AWS_REGION: 'us-east-1' },
    modelSettings.parse({
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: baseUrl,
      EMBEDDINGS_MODEL: 'emb-1',
      ...(apiKey ? { EMBEDDINGS_API_KEY: apiKey } : {}),
    }),
  )!;

/**
 * Hybrid search against an OpenAI-compatible `/embeddings` double over real HTTP. The double embeds by concepts
 * (words of one meaning in either language share a dimension), the way a real model places "reembolso" and
 * "money back" close together; BM25 alone cannot connect them.
 */
const CONCEPTS: string[][] = [
  ['reembolso', 'estorno', 'refund', 'money', 'back'],
  ['entrega', 'frete', 'shipping', 'delivery'],
  ['senha', 'password', 'login'],
  ['garantia', 'warranty', 'defeito', 'broken'],
];

function embed(text: string): number[] {
  const v = new Array(CONCEPTS.length + 1).fill(0);
  v[CONCEPTS.length] = 0.05;
  for (const w of text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .match(/\p{L}+/gu) ?? []) {
    CONCEPTS.forEach((words, i) => {
      if (words.includes(w)) v[i] += 1;
    });
  }
  return v;
}

let server: Server;
let baseUrl: string;
let failing = false;
const requests: { model: string; input: string[]; auth?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      requests.push({ ...parsed, auth: req.headers.authorization });
      if (failing || req.url !== '/v1/embeddings') {
        res.writeHead(503).end('{}');
        return;
      }
      // Answer out of order: the adapter must put vectors back by `index`.
      const data = parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })).reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: parsed.model }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('OpenAI-compatible embeddings', () => {
  test('the adapter sends model, key and texts, and returns unit vectors in input order', async () => {
    const provider = openAiEmbeddings(baseUrl, 'sk-test');
    const [a, b] = await provider.embed(['reembolso', 'frete'], 'document');
    expect(requests.at(-1)).toMatchObject({ model: 'emb-1', input: ['reembolso', 'frete'], auth: 'Bearer sk-test' });
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(a![0]).toBeGreaterThan(0.9);
    expect(b![1]).toBeGreaterThan(0.9);
  });

  test('hybrid search finds what BM25 alone misses, and falls back to BM25 when the model fails', async () => {
    const logger = quietLogger();
    const provider = openAiEmbeddings(baseUrl);
    const store = new MemoryKnowledge();
    store.addBot('bot_h');
    const objects = new MemoryObjects();
    const jobs: IngestJob[] = [];
    const manage = makeKnowledgeManagement({
      requireBot: async (_p, id) => store.bot(id)!,
      files: store,
      index: store,
      objects,
      queue: { enqueue: async (j) => void jobs.push(j) },
      logger,
    });
    await manage.upload(
      'prj_1',
      'bot_h',
      'reembolso.txt',
      'text/plain',
      Buffer.from('O estorno do valor aparece na fatura do cartão.'),
    );
    await manage.upload('prj_1', 'bot_h', 'frete.txt', 'text/plain', Buffer.from('O frete é calculado pelo CEP.'));
    await manage.upload(
      'prj_1',
      'bot_h',
      'senha.txt',
      'text/plain',
      Buffer.from('Para trocar a senha, use o link do e-mail.'),
    );
    await makeIngestKnowledge({
      files: store,
      index: store,
      segments: new SegmentCache(objects),
      objects,
      logger,
      embeddings: provider,
    })('bot_h', jobs, {
      finalAttempt: false,
    });

    const lexicalOnly = makeKnowledgeSearch({
      bots: { get: async (id) => store.bot(id) },
      segments: new SegmentCache(objects),
      logger,
    });
    expect(await lexicalOnly.search({ botId: 'bot_h', query: 'how do I get my money back', topK: 3 })).toEqual([]);

    const hybrid = makeKnowledgeSearch({
      bots: { get: async (id) => store.bot(id) },
      segments: new SegmentCache(objects),
      logger,
      embeddings: provider,
    });
    const found = await hybrid.search({ botId: 'bot_h', query: 'how do I get my money back', topK: 3 });
    expect(found[0]!.fileName).toBe('reembolso.txt');
    for (const r of found) expect(r.score > 0 && r.score <= 1).toBe(true);
    const both = await hybrid.search({ botId: 'bot_h', query: 'frete', topK: 3 });
    expect(both[0]!.fileName).toBe('frete.txt');

    failing = true;
    const fallback = await hybrid.search({ botId: 'bot_h', query: 'senha', topK: 3 });
    expect(fallback.map((r) => r.fileName)).toEqual(['senha.txt']);
    failing = false;
  });
});
