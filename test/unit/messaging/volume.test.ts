import { describe, expect, it } from 'vitest';
import { makeProcessSesEvent, normaliseSesEvent, sesEventOf } from '#shared/messaging/inbound/ses-events.ts';
import { parseSendAt } from '#shared/messaging/volume/send-at.ts';
import { paceSlots } from '#shared/messaging/volume/pace.ts';

const now = new Date('2026-12-01T12:00:00Z');

describe('sendAt', () => {
  it('takes RFC 3339 with an offset, 60 s to 35 days ahead, and answers it in UTC', () => {
    expect(parseSendAt('2026-12-01T09:05:00-03:00', now)).toEqual({ ok: true, sendAt: '2026-12-01T12:05:00.000Z' });
    expect(parseSendAt('2026-12-01T12:01:00Z', now)).toMatchObject({ ok: true });
    expect(parseSendAt('2027-01-05T12:00:00Z', now)).toMatchObject({ ok: true });
  });
  it.each([
    ['in the past', '2026-12-01T11:59:00Z', 'too_small'],
    ['under a minute ahead', '2026-12-01T12:00:59Z', 'too_small'],
    ['beyond 35 days', '2027-01-05T12:00:01Z', 'too_big'],
    ['without an offset', '2026-12-01T13:00:00', 'invalid_format'],
    ['not a date', 'tomorrow', 'invalid_format'],
    ['a number', 1_800_000_000_000, 'invalid_format'],
  ])('refuses a time %s', (_, value, code) => {
    expect(parseSendAt(value, now)).toMatchObject({ ok: false, detail: { path: 'sendAt', code } });
  });
});

describe('pace', () => {
  it('is whole sends a second through as many slots, each once a second and a departure tolerance, planned 0.5 % further apart', () => {
    const slots = (perSecond: number) => {
      const p = paceSlots(perSecond);
      return { ...p, windowMs: Math.round(p.windowMs * 100) / 100, spacingMs: Math.round(p.spacingMs * 1000) / 1000 };
    };
    expect(slots(10)).toEqual({ slots: 10, windowMs: 1015.05, spacingMs: 101.505, admitWindowMs: 1010 });
    expect(slots(200)).toEqual({ slots: 200, windowMs: 1015.05, spacingMs: 5.075, admitWindowMs: 1010 });
    // A sliding second holds a whole number of sends: 2.5 a second is never 3 in one.
    expect(slots(2.5)).toEqual({ slots: 2, windowMs: 1015.05, spacingMs: 507.525, admitWindowMs: 1010 });
    // Below one a second, one slot less often.
    expect(slots(0.5)).toEqual({ slots: 1, windowMs: 2020.05, spacingMs: 2020.05, admitWindowMs: 2010 });
  });
});

describe('SES events', () => {
  const bounce = {
    eventType: 'Bounce',
    mail: { messageId: 'ses-1', destination: ['a@x.example'] },
    bounce: {
      bounceType: 'Permanent',
      bounceSubType: 'General',
      timestamp: '2026-12-01T12:00:01Z',
      bouncedRecipients: [{ emailAddress: 'a@x.example', diagnosticCode: 'smtp; 550 5.1.1' }],
    },
  };
  it('reads the event raw, in SNS’s envelope or as an EventBridge event; nothing else', () => {
    expect(sesEventOf(bounce)?.mail.messageId).toBe('ses-1');
    expect(sesEventOf({ Type: 'Notification', Message: JSON.stringify(bounce) })?.eventType).toBe('Bounce');
    expect(sesEventOf({ source: 'aws.ses', 'detail-type': 'Email Bounced', detail: bounce })?.eventType).toBe('Bounce');
    expect(sesEventOf({ notificationType: 'Received', mail: { messageId: 'x' } })).toBeUndefined();
    expect(sesEventOf({ v: 1, source: 'twilio' })).toBeUndefined();
  });
  it('a permanent bounce fails the message and suppresses its recipients; a transient one changes nothing', () => {
    expect(normaliseSesEvent(sesEventOf(bounce)!, 'now')).toEqual([
      expect.objectContaining({ kind: 'status', status: 'failed', providerMessageId: 'ses-1' }),
      expect.objectContaining({ kind: 'suppression', contacts: ['a@x.example'], reason: 'bounce' }),
    ]);
    const transient = { ...bounce, bounce: { ...bounce.bounce, bounceType: 'Transient' } };
    expect(normaliseSesEvent(sesEventOf(transient)!, 'now')).toEqual([]);
    const complaint = {
      eventType: 'Complaint',
      mail: bounce.mail,
      complaint: { complainedRecipients: [{ emailAddress: 'a@x.example' }] },
    };
    expect(normaliseSesEvent(sesEventOf(complaint)!, 'now')).toEqual([
      expect.objectContaining({ kind: 'suppression', reason: 'complaint' }),
    ]);
  });
});

describe('an SES event about a mail not recorded (yet)', () => {
  const at = new Date('2026-12-02T10:00:00Z');
  function worker() {
    const logged: string[] = [];
    const applied: unknown[] = [];
    const process = makeProcessSesEvent({
      statuses: { findByProviderId: async () => undefined },
      channels: { findById: async () => undefined },
      apply: async (_channel, items) => void applied.push(items),
      log: { info: (message) => void logged.push(message) },
      now: () => at,
    });
    return { process, logged, applied };
  }
  const delivery = (timestamp?: string) => ({
    eventType: 'Delivery' as const,
    mail: { messageId: 'ses-1', ...(timestamp ? { timestamp } : {}), destination: ['ana@example.org'] },
  });

  it('is retried while fresh: the send may not have recorded SES’s id yet', async () => {
    const w = worker();
    await expect(w.process(delivery('2026-12-02T09:59:58Z') as never)).rejects.toThrow(/not recorded yet/);
    expect(w.applied).toHaveLength(0);
  });

  it('is logged and dropped once old, or without a time: no suppression, no event', async () => {
    for (const timestamp of ['2026-12-02T09:50:00Z', undefined]) {
      const w = worker();
      await w.process(delivery(timestamp) as never);
      expect(w.applied).toHaveLength(0);
      expect(w.logged).toHaveLength(1);
    }
  });
});
