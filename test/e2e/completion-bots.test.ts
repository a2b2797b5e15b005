import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { type SharedModelDouble, sharedModelDouble } from '#test/support/model-double.ts';

/**
 * Completion with a bot, through the local runner: the bot's instructions and its top knowledge excerpts (each with
 * its file name) reach the model as the system prompt; bot resolution (403/404) happens before the balance is
 * touched; the bot's `model` picks the provider.
 */
let svc: ServiceClient;
let model: SharedModelDouble;
let owner: { projectId: string; token: string };
let botId: string;

const FILES: Record<string, string> = {
  'horarios-loja.md':
    '# Horários\n\nA loja abre às 9h e fecha às 18h de segunda a sábado. Aos domingos a loja fica fechada.',
  'trocas.txt':
    'Trocas de produtos podem ser feitas em até 30 dias com a nota fiscal. A loja troca produtos de segunda a sábado.',
  'entrega.html':
    '<html><body><h1>Entrega</h1><p>Entregas na capital em 2 dias úteis; a loja envia o código de rastreio por e-mail.</p></body></html>',
  'garantia.md': 'A garantia da loja cobre defeitos de fabricação por 12 meses.',
  'pagamento.txt': 'A loja aceita cartão, Pix e boleto. Parcelamento em até 10 vezes sem juros.',
  'fidelidade.txt': 'O programa de fidelidade da loja dá 1 ponto por real gasto.',
  'contato.txt': 'O atendimento da loja responde por WhatsApp das 9h às 18h.',
};

async function upload(projectId: string, bot: string, fileName: string, body: string) {
  expect((await svc.putKnowledge(projectId, bot, fileName, body)).status).toBe(202);
}

async function createBot(projectId: string, fields: Record<string, unknown>) {
  const res = await svc.admin('POST', `/projects/${projectId}/bots`, {
    name: 'Loja',
    instructions: 'Você é o assistente da loja.',
    ...fields,
  });
  expect(res.status).toBe(201);
  return res.body.botId as string;
}

const complete = (token: string, body: unknown) => svc.botsApi(token, 'completion', body);
const balance = (projectId: string) => svc.botBalance(projectId);
let seq = 0;
const marker = () => `m${++seq}x${Math.random().toString(36).slice(2, 7)}`;

beforeAll(async () => {
  svc = await sharedService();
  model = sharedModelDouble();
  owner = await svc.newProject({ monthlyBotCredits: 20 });
  botId = await createBot(owner.projectId, { temperature: 0.2 });
  for (const [fileName, body] of Object.entries(FILES)) await upload(owner.projectId, botId, fileName, body);
  await svc.knowledgeReady(owner.projectId, botId);
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe('POST /api/v1/ai/completion with botId', () => {
  it("sends the bot's instructions and at most 5 excerpts, each labelled with its file name, as the system prompt", async () => {
    const before = await balance(owner.projectId);
    const m = marker();
    const res = await complete(owner.token, { botId, prompt: `A que horas a loja abre no sábado? ${m}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      result: expect.stringContaining('Echo:'),
      usage: { inputTokens: 11, outputTokens: 7 },
      fontes: expect.any(Array),
    });
    expect(await balance(owner.projectId)).toBe(before - 1);

    const [sent] = await model.find(m);
    // fontes: the files whose excerpts the model was given, each once, best first.
    const fontes = res.body.fontes as { procedencia: string; score: number }[];
    const given = [...sent!.system.matchAll(/^\[(\d+)\] File: (.+)$/gm)].map((x) => x[2]!);
    expect(fontes.map((f) => f.procedencia).sort()).toEqual([...new Set(given)].sort());
    expect(fontes[0]!.procedencia).toBe('horarios-loja.md');
    expect(fontes.map((f) => f.score)).toEqual(fontes.map((f) => f.score).sort((a, b) => b - a));
    expect(sent!.body.model).toBe('test-model'); // the model group's OPENAI_MODEL
    expect(sent!.body.temperature).toBe(0.2);
    expect(sent!.system.startsWith('Você é o assistente da loja.')).toBe(true);
    const labels = [...sent!.system.matchAll(/^\[(\d+)\] File: (.+)$/gm)].map((x) => x[2]);
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.length).toBeLessThanOrEqual(5);
    expect(labels[0]).toBe('horarios-loja.md');
    expect(sent!.system).toContain('A loja abre às 9h e fecha às 18h');
    for (const label of labels) expect(Object.keys(FILES)).toContain(label);
  });

  it('answers JSON with a bot', async () => {
    const res = await complete(owner.token, {
      botId,
      prompt: `#json Quais formas de pagamento? ${marker()}`,
      responseFormat: 'json',
    });
    expect(res.status).toBe(200);
    expect(res.body.dados).toEqual({ answer: 42, ok: true });
  });

  it('403 BOT_FORBIDDEN for another project’s bot and 404 BOT_NOT_FOUND for none: no model call, balance untouched', async () => {
    const other = await svc.newProject({ monthlyBotCredits: 3 });
    const m = marker();
    const forbidden = await complete(other.token, { botId, prompt: m });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ success: false, error: 'BOT_FORBIDDEN' });
    const missing = await complete(other.token, { botId: 'bot_doesnotexist', prompt: m });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: 'BOT_NOT_FOUND' });
    expect(await balance(other.projectId)).toBe(3);
    expect(await model.find(m)).toHaveLength(0);
  });

  it('bot resolution comes before the balance: an empty balance still gets 403/404 first', async () => {
    const broke = await svc.newProject({ monthlyBotCredits: 0 });
    expect((await complete(broke.token, { botId, prompt: 'x' })).status).toBe(403);
    expect((await complete(broke.token, { botId: 'bot_nope', prompt: 'x' })).status).toBe(404);
    const ownBot = await createBot(broke.projectId, {});
    expect((await complete(broke.token, { botId: ownBot, prompt: 'x' })).status).toBe(402);
  });

  it("the bot's model picks the provider and the model id", async () => {
    const customBot = await createBot(owner.projectId, { model: 'openai:llama3.1:8b' });
    const m = marker();
    expect((await complete(owner.token, { botId: customBot, prompt: m })).status).toBe(200);
    expect((await model.find(m))[0]!.body.model).toBe('llama3.1:8b');

    const offlineBot = await createBot(owner.projectId, { model: 'offline' });
    await upload(owner.projectId, offlineBot, 'horarios-loja.md', FILES['horarios-loja.md']!);
    await svc.knowledgeReady(owner.projectId, offlineBot);
    const m2 = marker();
    const res = await complete(owner.token, { botId: offlineBot, prompt: `Que horas a loja abre? ${m2}` });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatch(/^\[offline model\]/);
    expect(res.body.result).toContain('"horarios-loja.md"');
    expect(res.body.result).toContain('A loja abre às 9h');
    expect(await model.find(m2)).toHaveLength(0);
  });

  it('a model setting the completion endpoint could not use is refused when the bot is saved', async () => {
    const project = await svc.newProject({ monthlyBotCredits: 2 });
    const res = await svc.admin('POST', `/projects/${project.projectId}/bots`, {
      name: 'Loja',
      instructions: 'x',
      model: 'gpt-4o',
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      expect.objectContaining({ path: 'model', message: expect.stringMatching(/openai|bedrock|offline/) }),
    ]);
    expect(await balance(project.projectId)).toBe(2);
  });

  it('a model failure with a bot is refunded', async () => {
    const before = await balance(owner.projectId);
    const res = await complete(owner.token, { botId, prompt: `#fail ${marker()}` });
    expect(res.status).toBe(502);
    expect(await balance(owner.projectId)).toBe(before);
  });
});
