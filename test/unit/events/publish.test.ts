import { describe, expect, it } from 'vitest';
import type { EventMessage } from '#shared/events/index.ts';
import { makeEventPublisher } from '#shared/events/publish-event.ts';

function fakes() {
  const sent: EventMessage[] = [];
  const objects = new Map<string, string>();
  return {
    sent,
    objects,
    publisher: makeEventPublisher({
      queue: { send: async (m) => void sent.push(m) },
      payloads: { put: async (k, b) => void objects.set(k, b), get: async (k) => objects.get(k)! },
      now: () => new Date('2026-11-21T10:00:00.000Z'),
    }),
  };
}

const channel = { id: 'ch_1', type: 'sms', address: '+5511999990000' };

describe('EventPublisher', () => {
  it('queues the envelope with an evt_ id that sorts by time, the body serialized once', async () => {
    const { publisher, sent } = fakes();
    const envelope = await publisher.publish({
      type: 'message.sent',
      projectId: 'prj_1',
      companyId: 1042,
      channel,
      data: { messageId: 'msg_1' },
    });
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{20}$/),
      type: 'message.sent',
      timestamp: '2026-11-21T10:00:00.000Z',
      projectId: 'prj_1',
      companyId: 1042,
      channel,
      data: { messageId: 'msg_1' },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      v: 1,
      eventId: envelope.id,
      eventType: 'message.sent',
      projectId: 'prj_1',
      channelId: 'ch_1',
    });
    expect(JSON.parse(sent[0]!.body!)).toEqual(envelope);
    const later = await makeEventPublisher({
      queue: { send: async () => {} },
      payloads: { put: async () => {}, get: async () => '' },
      now: () => new Date('2026-11-21T10:00:00.001Z'),
    }).publish({
      type: 'message.sent',
      projectId: 'prj_1',
      companyId: 1,
      channel,
      data: {},
    });
    expect(later.id > envelope.id).toBe(true);
  });

  it('parks a body over 200 KB in S3 and queues a pointer', async () => {
    const { publisher, sent, objects } = fakes();
    const envelope = await publisher.publish({
      type: 'message.received',
      projectId: 'prj_1',
      companyId: 1,
      channel,
      data: { text: 'x'.repeat(210 * 1024) },
    });
    expect(sent[0]!.body).toBeUndefined();
    expect(sent[0]!.bodyRef).toBe(`payloads/${envelope.id}.json`);
    expect(JSON.parse(objects.get(sent[0]!.bodyRef!)!)).toEqual(envelope);
    expect(Buffer.byteLength(JSON.stringify(sent[0]))).toBeLessThan(1024);
  });
});
