import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/service.ts';

/** The local default: no model configured, the offline provider answers, and the whole flow runs without network. */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.close());

async function complete(token: string, body: unknown) {
  const res = await fetch(`${svc.baseUrl}/api/v1/ai/completion`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

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
    expect((await svc.admin('GET', `/projects/${projectId}/bot-credits`)).body.disponivel).toBe(1);
  });

  it("answers from the bot's best knowledge excerpt, as text or JSON", async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, {
      name: 'Loja',
      instructions: 'Responda pela base.',
    });
    const put = await fetch(
      `${svc.baseUrl}/admin/v1/projects/${projectId}/bots/${bot.body.botId}/knowledge/prazos.txt`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'text/plain' },
        body: 'O reembolso no Pix cai em até 2 dias úteis.',
      },
    );
    expect(put.status).toBe(202);
    const deadline = Date.now() + 30_000;
    while (
      (await svc.admin('GET', `/projects/${projectId}/bots/${bot.body.botId}/knowledge`)).body.items[0]?.status !==
      'ready'
    ) {
      if (Date.now() > deadline) throw new Error('knowledge not ready');
      await new Promise((r) => setTimeout(r, 100));
    }
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
