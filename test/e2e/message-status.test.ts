import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(() => svc?.close());

const getMessage = (token: string | undefined, messageId: string) =>
  fetch(`${svc.baseUrl}/api/integration/messages/${messageId}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

async function channelWithToken(projectId: string, address: string) {
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, { type: 'sms', name: 'S', address });
  const token = (
    await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: channel.body.channelId,
    })
  ).body.token as string;
  return { channelId: channel.body.channelId as string, token };
}

describe('GET /api/integration/messages/{messageId}', () => {
  it("answers a sent message's status and history to its channel's token only", async () => {
    const { projectId } = await svc.newProject();
    const a = await channelWithToken(projectId, '+5511999990000');
    const b = await channelWithToken(projectId, '+5511999990001');
    const sent = (await (await svc.send(a.token, { to: '+5511988887777', body: 'hello' })).json()) as any;

    const answer = await getMessage(a.token, sent.messageId);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as any;
    expect(body).toEqual({
      success: true,
      messageId: sent.messageId,
      direction: 'outbound',
      status: 'sent',
      channel: { id: a.channelId, type: 'sms' },
      to: '+5511988887777',
      // Its conversation: the contact, the conversation's id, what was sent.
      contact: '+5511988887777',
      conversationId: expect.stringMatching(/^conv_/),
      text: 'hello',
      createdAt: expect.any(String),
      history: [{ status: 'sent', at: body.createdAt }],
    });

    const other = await getMessage(b.token, sent.messageId);
    expect(other.status).toBe(404);
    expect(((await other.json()) as any).error).toBe('MESSAGE_NOT_FOUND');
    expect(((await (await getMessage(a.token, 'msg_doesnotexist')).json()) as any).error).toBe('MESSAGE_NOT_FOUND');

    for (const token of [undefined, 'sbc_wrong', svc.adminKey]) {
      const refused = await getMessage(token, sent.messageId);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as any).error).toBe('ERR_NO_PERMISSION');
    }
  });
});
