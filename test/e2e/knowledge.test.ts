import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * Bots and their knowledge over HTTP, as a customer uses them: documents in Portuguese and English uploaded to a
 * bot, processed by the ingest worker, then searched through POST /api/v1/ai/search.
 */
let svc: ServiceClient;
let project: { projectId: string; token: string };
let botId: string;

const POLICY_MD = `# Política de reembolso

Você pode devolver qualquer produto em até 7 dias após o recebimento. O reembolso no cartão de crédito aparece em até duas faturas; no Pix, em até 2 dias úteis.

## Trocas

Trocas de tamanho são gratuitas na primeira solicitação.`;

const DELIVERY_HTML = `<html><head><title>Entrega</title><script>var segredo = "zebrafantasma";</script><style>.x{}</style></head>
<body><h1>Prazos de entrega</h1><p>Pedidos para capitais chegam em 1 a 3 dias úteis. O frete é grátis acima de R$ 199.</p>
<p>O código de rastreamento é enviado por e-mail assim que o pedido é despachado.</p></body></html>`;

const RATE_TXT = `Rate limits
Each API token may make 60 requests per minute. Over the limit the API answers 429 with a Retry-After header.`;

async function onboardingPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  const lines = [
    'Employee onboarding handbook.',
    'New employees collect their laptop from the IT desk on the first day.',
    'Enroll in health insurance within 30 days.',
  ];
  for (const [i, line] of lines.entries()) page.drawText(line, { x: 50, y: 750 - i * 20, size: 12, font });
  return doc.save();
}

const upload = (
  fileName: string,
  contentType: string,
  body: string | Uint8Array,
  bot = botId,
  projectId = project.projectId,
) => svc.putKnowledge(projectId, bot, fileName, body, contentType);

const search = (body: unknown, token = project.token) => svc.botsApi(token, 'search', body);

async function knowledge(bot = botId) {
  const res = await svc.admin('GET', `/projects/${project.projectId}/bots/${bot}/knowledge`);
  expect(res.status).toBe(200);
  return res.body.items as { fileName: string; status: string; chunks: number; error?: string }[];
}

/** Polls the knowledge list until no file is processing (deadline 30 s). */
async function settled(bot = botId, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const items = await knowledge(bot);
      return items.every((i) => i.status !== 'processing') ? items : undefined;
    },
    timeoutMs,
    'no knowledge file processing',
  );
}

beforeAll(async () => {
  svc = await sharedService();
  project = await svc.newProject();
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
    name: 'Atendimento',
    instructions: 'Responda com base nos documentos.',
  });
  expect(bot.status).toBe(201);
  botId = bot.body.botId;
  const uploads = await Promise.all([
    upload('politica-de-reembolso.md', 'text/markdown', POLICY_MD),
    upload('Entrega_Prazos.html', 'text/html; charset=utf-8', DELIVERY_HTML),
    upload('rate-limits.txt', 'text/plain', RATE_TXT),
    upload('Onboarding.PDF', 'application/pdf', await onboardingPdf()),
  ]);
  for (const u of uploads) {
    expect(u.status).toBe(202);
    expect(u.body.status).toBe('processing');
  }
  const items = await settled();
  expect(items.map((i) => [i.fileName, i.status])).toEqual([
    ['Entrega_Prazos.html', 'ready'],
    ['Onboarding.PDF', 'ready'],
    ['politica-de-reembolso.md', 'ready'],
    ['rate-limits.txt', 'ready'],
  ]);
  for (const i of items) expect(i.chunks).toBeGreaterThan(0);
}, 60_000);

afterAll(async () => svc?.close());

describe('POST /api/v1/ai/search', () => {
  test.each([
    ['Em quanto tempo recebo o reembolso no cartão?', 'politica-de-reembolso.md'],
    ['reembolso pix', 'politica-de-reembolso.md'],
    ['frete gratis e prazo de entrega para capitais', 'Entrega_Prazos.html'],
    ['codigo de rastreamento', 'Entrega_Prazos.html'],
    ['how many requests per minute before a 429?', 'rate-limits.txt'],
    ['where do I get my laptop on the first day', 'Onboarding.PDF'],
  ])('%s → %s first', async (query, expected) => {
    const res = await search({ botId, query });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.trechos[0].procedencia).toBe(expected);
    expect(res.headers.get('ratelimit-limit')).toBeTruthy();
    const scores = res.body.trechos.map((t: { score: number }) => t.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const t of res.body.trechos) {
      expect(Object.keys(t).sort()).toEqual(['procedencia', 'score', 'texto']);
      expect(t.score).toBeGreaterThan(0);
      expect(t.score).toBeLessThanOrEqual(1);
      expect(typeof t.texto).toBe('string');
    }
  });

  test('scripts and styles of HTML are not searchable', async () => {
    const res = await search({ botId, query: 'zebrafantasma' });
    expect(res.status).toBe(200);
    expect(res.body.trechos).toEqual([]);
  });

  test('topK bounds the answer; default 5; 1..8 enforced', async () => {
    const query = 'reembolso entrega requests laptop frete';
    expect((await search({ botId, query, topK: 1 })).body.trechos).toHaveLength(1);
    expect((await search({ botId, query, topK: 8 })).body.trechos.length).toBeLessThanOrEqual(8);
    expect((await search({ botId, query, topK: 2 })).body.trechos).toHaveLength(2);
    expect((await search({ botId, query })).body.trechos.length).toBeLessThanOrEqual(5);
    for (const topK of [0, 9, 2.5, '3']) {
      const res = await search({ botId, query, topK });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details[0].path).toBe('topK');
    }
  });

  test('filters: include by pattern (case-insensitive, whole name), exclusion wins, _ is literal', async () => {
    const query = 'reembolso entrega requests laptop frete';
    const only = async (filters: unknown) =>
      new Set(
        (await search({ botId, query, topK: 8, filters })).body.trechos.map(
          (t: { procedencia: string }) => t.procedencia,
        ),
      );
    expect(await only({ incluirArquivos: ['%.md'] })).toEqual(new Set(['politica-de-reembolso.md']));
    expect(await only({ incluirArquivos: ['%.pdf', 'RATE%'] })).toEqual(new Set(['Onboarding.PDF', 'rate-limits.txt']));
    expect(await only({ incluirArquivos: ['%.md', '%.txt'], excluirArquivos: ['%.md'] })).toEqual(
      new Set(['rate-limits.txt']),
    );
    expect(await only({ excluirArquivos: ['%'] })).toEqual(new Set());
    expect(await only({ incluirArquivos: ['entrega_prazos.html'] })).toEqual(new Set(['Entrega_Prazos.html']));
    expect(await only({ incluirArquivos: ['entrega_prazos'] })).toEqual(new Set()); // the whole name must match
    expect(await only({ incluirArquivos: ['Entrega.Prazos.html'] })).toEqual(new Set()); // "." is literal
    expect(await only({ incluirArquivos: ['Entrega%Prazos.html'] })).toEqual(new Set(['Entrega_Prazos.html']));
  });

  test('validation: query 1..2000, strict body, filters shape', async () => {
    const long = await search({ botId, query: 'a'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.details[0].path).toBe('query');
    expect((await search({ botId, query: 'a'.repeat(2000) })).status).toBe(200);
    expect((await search({ botId, query: '' })).status).toBe(400);
    expect((await search({ botId, query: '   ' })).status).toBe(400);
    expect((await search({ query: 'x' })).body.details[0].path).toBe('botId');
    const unknown = await search({ botId, query: 'x', limit: 3 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toContainEqual(expect.objectContaining({ path: 'limit', code: 'unrecognized_keys' }));
    const badFilter = await search({ botId, query: 'x', filters: { incluirArquivos: 'a.md' } });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.details[0].path).toBe('filters.incluirArquivos');
    const response = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.token}`, 'content-type': 'application/json' },
      body: '{"botId":',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toBe('INVALID_JSON');
  });

  test('auth: 401 without a token; 403 for another project bot; 404 for an unknown bot; no credit needed', async () => {
    const none = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
      method: 'POST',
      body: JSON.stringify({ botId, query: 'x' }),
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error).toBe('ERR_API_TOKEN_NOT_PROVIDED');
    const other = await svc.newProject({ monthlyBotCredits: 0 });
    const forbidden = await search({ botId, query: 'reembolso' }, other.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('BOT_FORBIDDEN');
    const missing = await search({ botId: 'bot_doesnotexist', query: 'reembolso' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('BOT_NOT_FOUND');
    // The project has 0 bot credits and search still works: it is free.
    const credits = await svc.admin('GET', `/projects/${project.projectId}/bot-credits`);
    expect(credits.body.disponivel).toBe(0);
  });

  test('a bot without documents answers 200 with no excerpts', async () => {
    const empty = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Vazio', instructions: 'x' });
    const res = await search({ botId: empty.body.botId, query: 'reembolso' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, trechos: [] });
  });
});

describe('knowledge files', () => {
  test('a corrupt PDF is marked failed with the reason', async () => {
    const res = await upload(
      'quebrado.pdf',
      'application/pdf',
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage without xref or pages'),
    );
    expect(res.status).toBe(202);
    const items = await settled();
    const broken = items.find((i) => i.fileName === 'quebrado.pdf')!;
    expect(broken.status).toBe('failed');
    expect(broken.chunks).toBe(0);
    expect(broken.error).toMatch(/PDF/i);
    const notPdf = await upload('nao-e-pdf.pdf', 'application/pdf', Buffer.from('just some text'));
    expect(notPdf.status).toBe(202);
    const after = await settled();
    expect(after.find((i) => i.fileName === 'nao-e-pdf.pdf')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/not a PDF/i),
    });
    expect(
      (await search({ botId, query: 'garbage xref catalog', topK: 8 })).body.trechos.map(
        (t: { procedencia: string }) => t.procedencia,
      ),
    ).not.toContain('quebrado.pdf');
  });

  test('other content types: 415; empty body: 400; unknown bot: 404; names that are paths: 400', async () => {
    const json = await upload('a.json', 'application/json', '{"a":1}');
    expect(json.status).toBe(415);
    expect(json.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(
      (await upload('a.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'x')).status,
    ).toBe(415);
    expect((await upload('vazio.txt', 'text/plain', '')).status).toBe(400);
    const unknownBot = await upload('a.txt', 'text/plain', 'hello', 'bot_nope');
    expect(unknownBot.status).toBe(404);
    expect(unknownBot.body.error).toBe('NOT_FOUND');
    expect((await upload('../etc/passwd', 'text/plain', 'x')).status).toBe(400);
  });

  test('a 24 MB upload (under the 25 MB limit) is accepted and stored whole', async () => {
    const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Grande', instructions: 'x' });
    const line = 'Linha de manual técnico com palavras comuns para preencher o arquivo grande.\n';
    const body = Buffer.from(line.repeat(Math.ceil((24 * 1024 * 1024) / Buffer.byteLength(line)))).subarray(
      0,
      24 * 1024 * 1024,
    );
    const res = await upload('manual-grande.txt', 'text/plain', body, bot.body.botId);
    expect(res.status).toBe(202);
    expect((await knowledge(bot.body.botId))[0]).toMatchObject({ fileName: 'manual-grande.txt', bytes: body.length });
    // Its ingestion is searchable text like any other; it also holds the local ingest function's one thread for a
    // while, so the next test's small uploads would wait behind it: it ends here.
    const [settledFile] = await settled(bot.body.botId, 150_000);
    expect(settledFile).toMatchObject({ fileName: 'manual-grande.txt', status: 'ready' });
    expect(settledFile!.chunks).toBeGreaterThan(1000);
  }, 180_000);

  test('same name replaces: the new content is searched, the old is gone', async () => {
    const first = await upload(
      'faq.txt',
      'text/plain',
      'O horário de atendimento é das 8h às 18h, de segunda a sexta.',
    );
    expect(first.status).toBe(202);
    await settled();
    expect((await search({ botId, query: 'horario de atendimento' })).body.trechos[0].procedencia).toBe('faq.txt');
    const second = await upload('faq.txt', 'text/plain', 'A central de ajuda funciona 24 horas por dia pelo chat.');
    expect(second.status).toBe(202);
    const items = await settled();
    expect(items.filter((i) => i.fileName === 'faq.txt')).toHaveLength(1);
    const old = await search({ botId, query: 'horario de atendimento segunda sexta', topK: 8 });
    expect(old.body.trechos.some((t: { texto: string }) => t.texto.includes('segunda a sexta'))).toBe(false);
    expect((await search({ botId, query: 'central de ajuda chat 24 horas' })).body.trechos[0].texto).toContain(
      '24 horas',
    );
  });

  test('delete: the excerpts leave search at once; a second delete is 404', async () => {
    const before = await search({ botId, query: 'how many requests per minute before a 429?' });
    expect(before.body.trechos[0].procedencia).toBe('rate-limits.txt');
    const del = await svc.admin('DELETE', `/projects/${project.projectId}/bots/${botId}/knowledge/rate-limits.txt`);
    expect(del.status).toBe(204);
    const after = await search({ botId, query: 'how many requests per minute before a 429?', topK: 8 });
    expect(after.status).toBe(200);
    expect(after.body.trechos.map((t: { procedencia: string }) => t.procedencia)).not.toContain('rate-limits.txt');
    expect((await knowledge()).map((i) => i.fileName)).not.toContain('rate-limits.txt');
    const again = await svc.admin('DELETE', `/projects/${project.projectId}/bots/${botId}/knowledge/rate-limits.txt`);
    expect(again.status).toBe(404);
  });
});

describe('bots CRUD', () => {
  test('create, read, list, update, delete; another project sees 404; a deleted bot answers 404 to search', async () => {
    const created = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
      name: 'Vendas',
      instructions: 'Seja breve.',
      model: 'bedrock:amazon.nova-lite-v1:0',
      temperature: 0.2,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      botId: expect.stringMatching(/^bot_/),
      projectId: project.projectId,
      name: 'Vendas',
      instructions: 'Seja breve.',
      model: 'bedrock:amazon.nova-lite-v1:0',
      temperature: 0.2,
    });
    // A model the completion endpoint could not use is refused when the bot is saved, not when it is called.
    const badModel = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
      name: 'x',
      instructions: 'y',
      model: 'amazon.nova-lite-v1:0',
    });
    expect(badModel.status).toBe(400);
    expect(badModel.body.details[0].path).toBe('model');
    const id = created.body.botId;
    expect((await svc.admin('GET', `/projects/${project.projectId}/bots/${id}`)).body.name).toBe('Vendas');
    const list = await svc.admin('GET', `/projects/${project.projectId}/bots`);
    expect(list.body.items.map((b: { botId: string }) => b.botId)).toContain(id);
    const patched = await svc.admin('PATCH', `/projects/${project.projectId}/bots/${id}`, {
      instructions: 'x'.repeat(60_000),
      temperature: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.instructions).toHaveLength(60_000);
    expect(patched.body.temperature).toBeNull();
    expect(
      (await svc.admin('PATCH', `/projects/${project.projectId}/bots/${id}`, { instructions: 'x'.repeat(60_001) }))
        .status,
    ).toBe(400);
    expect(
      (await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'x', instructions: 'y', temperature: 3 }))
        .status,
    ).toBe(400);
    expect(
      (await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'x', instructions: 'y', extra: 1 }))
        .status,
    ).toBe(400);
    expect((await svc.admin('POST', `/projects/prj_nope/bots`, { name: 'x', instructions: 'y' })).status).toBe(404);

    const other = await svc.newProject();
    expect((await svc.admin('GET', `/projects/${other.projectId}/bots/${id}`)).status).toBe(404);
    expect((await svc.admin('DELETE', `/projects/${other.projectId}/bots/${id}`)).status).toBe(404);

    expect((await upload('x.txt', 'text/plain', 'conteúdo do bot de vendas', id)).status).toBe(202);
    await settled(id);
    expect((await search({ botId: id, query: 'vendas conteudo' })).body.trechos).toHaveLength(1);
    expect((await svc.admin('DELETE', `/projects/${project.projectId}/bots/${id}`)).status).toBe(204);
    expect((await svc.admin('GET', `/projects/${project.projectId}/bots/${id}`)).status).toBe(404);
    const gone = await search({ botId: id, query: 'vendas' });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('BOT_NOT_FOUND');
  });
});
