import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/** The local default: no model configured, the offline provider answers, and the whole flow runs without network. */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

const complete = (token: string, body: unknown) => svc.botsApi(token, 'completion', body);

describe('completion on the offline provider (local default)', () => {
  it('echoes an outline of the prompt, labelled as offline, and charges 1 credit', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const res = await complete(token, {
      instructions: 'Be brief.',
      prompt: 'Summarise our refund policy. Keep it short.',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      result:
        '[offline model] No language model is connected. Your prompt (7 words) in outline:\n- Summarise our refund policy.\n- Keep it short.',
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    expect(await svc.botBalance(projectId)).toBe(1);
  });

  it("answers from the bot's best knowledge excerpt, as text or JSON", async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, {
      name: 'Loja',
      instructions: 'Responda pela base.',
    });
    const put = await svc.putKnowledge(
      projectId,
      bot.body.botId,
      'prazos.txt',
      'O reembolso no Pix cai em até 2 dias úteis.',
    );
    expect(put.status).toBe(202);
    await svc.knowledgeReady(projectId, bot.body.botId);
    const text = await complete(token, { botId: bot.body.botId, prompt: 'Em quanto tempo cai o reembolso no Pix?' });
    expect(text.status).toBe(200);
    expect(text.body.result).toBe(
      '[offline model] No language model is connected; the closest passage in the bot\'s knowledge is from "prazos.txt":\n\nO reembolso no Pix cai em até 2 dias úteis.',
    );
    const asJson = await complete(token, { botId: bot.body.botId, prompt: 'reembolso Pix', responseFormat: 'json' });
    expect(asJson.status).toBe(200);
    expect(asJson.body.dados).toEqual({
      offline: true,
      answer: 'O reembolso no Pix cai em até 2 dias úteis.',
      source: 'prazos.txt',
    });
  });
});
