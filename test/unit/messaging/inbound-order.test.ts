import { describe, expect, it } from 'vitest';
import type { OutboxMark } from '#shared/events/index.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import {
  INBOUND_SET_ASIDE_AFTER,
  INBOUND_SET_ASIDE_UNTRIED_AFTER,
  type LaneMessage,
  makeOrderedLane,
  makeUnorderedLane,
  retryDelaySeconds,
} from '#shared/messaging/inbound/lanes.ts';
import {
  orderedCopies,
  orderedDeduplicationId,
  orderedGroupId,
  senderOfMailNotification,
} from '#shared/messaging/inbound/order.ts';
import { makeProcessInbound } from '#shared/messaging/inbound/process-inbound.ts';
import type { InboundReport } from '#shared/messaging/inbound/report.ts';
import { fromHeader } from '#local/smtp-inbound.ts';
import { MemoryConversations } from '#test/support/fakes/memory-conversations.ts';
import { metaWebhookBody } from '#test/support/meta-webhook.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';

const whatsapp = {
  channelId: 'ch_wa',
  projectId: 'prj_1',
  companyId: 1,
  type: 'whatsapp',
  address: '15551234567',
  provider: { kind: 'whatsapp-cloud', phoneNumberId: 'PN1', accessToken: 'at', appSecret: 's' },
} as unknown as Channel;
const sms = {
  channelId: 'ch_sms',
  projectId: 'prj_1',
  companyId: 1,
  type: 'sms',
  address: '+15005550006',
  provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok' },
} as unknown as Channel;

/** A Meta callback with these messages (`[from, wamid]`) and statuses (`[recipient, wamid, status]`). */
function meta(messages: [string, string][], statuses: [string, string, string][] = []): Buffer {
  return metaWebhookBody({
    phoneNumberId: 'PN1',
    displayNumber: '15551234567',
    messages: messages.map(([from, id]) => ({ from, id })),
    statuses: statuses.map(([recipient, id, status]) => ({ recipient, id, status })),
  });
}

const reportOf = (channel: Channel, source: InboundReport['source'], raw: Buffer): InboundReport => ({
  v: 1,
  source,
  projectId: channel.projectId,
  channelId: channel.channelId,
  receivedAt: Date.parse('2026-01-01T00:00:00Z'),
  body: raw.toString('utf8'),
});

describe('where an accepted callback waits: its contact’s group', () => {
  it('a Twilio message in its sender’s group, a status in its recipient’s, both written as the channel writes them', () => {
    const message = Buffer.from(
      new URLSearchParams({ MessageSid: 'SM1', From: '5511988887777', To: '+15005550006', Body: 'oi' }).toString(),
    );
    const status = Buffer.from(
      new URLSearchParams({
        MessageSid: 'SM2',
        MessageStatus: 'delivered',
        From: '+15005550006',
        To: '+5511988887777',
      }).toString(),
    );
    const [m] = orderedCopies(reportOf(sms, 'twilio', message), sms, message);
    const [s] = orderedCopies(reportOf(sms, 'twilio', status), sms, status);
    expect(m!.contact).toBe('+5511988887777');
    expect(s!.contact).toBe('+5511988887777');
    expect(orderedGroupId(sms.channelId, m!.contact)).toBe(orderedGroupId(sms.channelId, s!.contact));
    expect(orderedGroupId(sms.channelId, m!.contact)).not.toBe(orderedGroupId(whatsapp.channelId, m!.contact));
    // Whole, untouched: one contact, nothing to pick.
    expect(m!.report.contact).toBeUndefined();
  });

  it('a Meta callback naming two contacts is queued once per contact, each copy for its contact’s items', () => {
    const raw = meta(
      [
        ['5511900000001', 'wamid.a1'],
        ['5511900000002', 'wamid.b1'],
        ['5511900000001', 'wamid.a2'],
      ],
      [['5511900000002', 'wamid.out', 'read']],
    );
    const copies = orderedCopies(reportOf(whatsapp, 'whatsapp-cloud', raw), whatsapp, raw);
    expect(copies.map((c) => [c.contact, c.report.contact])).toEqual([
      ['5511900000001', '5511900000001'],
      ['5511900000002', '5511900000002'],
    ]);
    expect(new Set(copies.map(orderedDeduplicationId)).size).toBe(2);
    // The same bytes again (a provider's retry) are the same copies.
    const again = orderedCopies(reportOf(whatsapp, 'whatsapp-cloud', raw), whatsapp, raw);
    expect(again.map(orderedDeduplicationId)).toEqual(copies.map(orderedDeduplicationId));
  });

  it('a body that does not parse goes whole to the channel’s own group', () => {
    const raw = Buffer.from('{"not":"a webhook"}');
    expect(orderedCopies(reportOf(whatsapp, 'whatsapp-cloud', raw), whatsapp, raw)).toEqual([
      { report: reportOf(whatsapp, 'whatsapp-cloud', raw), contact: '' },
    ]);
  });

  it('mail waits in its sender’s group: the From header as SES read it, else the envelope sender', () => {
    expect(
      senderOfMailNotification({ mail: { commonHeaders: { from: ['"Ana" <Ana@Example.org>'] }, source: 'b@x.org' } }),
    ).toBe('ana@example.org');
    expect(senderOfMailNotification({ mail: { commonHeaders: { from: ['ana@example.org'] } } })).toBe(
      'ana@example.org',
    );
    expect(senderOfMailNotification({ mail: { source: 'bounces+123@esp.example' } })).toBe('bounces+123@esp.example');
    expect(senderOfMailNotification({ mail: { source: '' } })).toBe('');
    expect(senderOfMailNotification(null)).toBe('');
  });

  it('the local listener finds the From header in the header block only, unfolded', () => {
    const mail = Buffer.from(
      'Subject: hi\r\nFrom: "Ana"\r\n  <ana@example.org>\r\nTo: x@y.org\r\n\r\nFrom: not@this.org\r\n',
    );
    expect(fromHeader(mail)).toBe('"Ana" <ana@example.org>');
    expect(fromHeader(Buffer.from('Subject: hi\r\n\r\nFrom: body@x.org\r\n'))).toBeUndefined();
  });
});

describe('a copy of a report is worked for its contact only', () => {
  function worker(options: { exclusive?: boolean } = {}) {
    const events = new RecordingPublisher();
    const marks = new Map<string, OutboxMark>();
    const process = makeProcessInbound({
      channels: { findById: async (id) => (id === whatsapp.channelId ? whatsapp : undefined) },
      statuses: {
        findByProviderId: async () => undefined,
        advance: async () => undefined,
        recordInbound: async (record, mark) => {
          if (marks.has(record.messageId)) return false;
          marks.set(record.messageId, mark);
          return true;
        },
        // A mark written a moment ago, as a crash between the write and the publish leaves it.
        pendingEvents: async (messageId) => {
          const mark = marks.get(messageId);
          return mark ? [{ ...mark, writtenAt: Date.now() }] : [];
        },
        clearEvent: async (messageId) => void marks.delete(messageId),
      },
      conversations: new MemoryConversations(),
      unsubscribe: { isAddressOf: () => false },
      events,
      rawReports: { get: async () => undefined },
      parseMail: async () => {
        throw new Error('no mail here');
      },
      log: { info: () => {}, warn: () => {} },
      sleep: async () => {},
      ...options,
    }).process;
    return { process, events };
  }

  it('picks its contact’s messages out of a callback that names two', async () => {
    const { process, events } = worker();
    const raw = meta([
      ['5511900000001', 'wamid.a1'],
      ['5511900000002', 'wamid.b1'],
      ['5511900000001', 'wamid.a2'],
    ]);
    const [a, b] = orderedCopies(reportOf(whatsapp, 'whatsapp-cloud', raw), whatsapp, raw);
    await process(b!.report);
    expect(events.envelopes.map((e) => e.data.providerMessageId)).toEqual(['wamid.b1']);
    await process(a!.report);
    expect(events.envelopes.map((e) => e.data.providerMessageId)).toEqual(['wamid.b1', 'wamid.a1', 'wamid.a2']);
  });

  it('on the ordered lane, a mark a crash left is published at once, before the contact’s next report is worked', async () => {
    const raw = meta([['5511900000001', 'wamid.c1']]);
    const report = reportOf(whatsapp, 'whatsapp-cloud', raw);
    for (const exclusive of [false, true]) {
      const { process, events } = worker({ exclusive });
      events.failSends = 1; // the process dies between the record's write and the event's send
      await expect(process(report)).rejects.toThrow();
      await process(report);
      // Unordered, a fresh mark may be another worker's still publishing: left to it (or to the sweep).
      expect(events.envelopes.map((e) => e.data.providerMessageId)).toEqual(exclusive ? ['wamid.c1'] : []);
    }
  });
});

describe('the ordered lane’s worker', () => {
  const message = (groupId: string, n: number, receiveCount = 1): LaneMessage => ({
    messageId: `${groupId}${n}`,
    receiptHandle: `rh-${groupId}${n}`,
    body: JSON.stringify({
      v: 1,
      source: 'twilio',
      projectId: 'prj_1',
      channelId: 'ch_sms',
      receivedAt: n,
      body: `${groupId}${n}`,
    }),
    groupId,
    receiveCount,
  });

  /** `slowMs`: how long each report takes on the lane's clock. */
  function lane(fail: (body: string) => boolean = () => false, setAsideFails = false, slowMs = 10) {
    const log: string[] = [];
    const setAside: string[] = [];
    const postponed: { receiptHandle: string; seconds: number }[] = [];
    const committed: string[] = [];
    let clock = 0;
    let running = 0;
    let overlapInGroup = false;
    const runningGroups = new Set<string>();
    const workBatch = makeOrderedLane({
      async work(report) {
        const group = report.body!.slice(0, 1);
        if (runningGroups.has(group)) overlapInGroup = true;
        runningGroups.add(group);
        running++;
        log.push(`start ${report.body}`);
        await new Promise((r) => setTimeout(r, 5));
        clock += slowMs;
        running--;
        runningGroups.delete(group);
        log.push(`end ${report.body}`);
        if (fail(report.body!)) throw new Error(`${report.body} failed`);
      },
      async setAside(report) {
        if (setAsideFails) throw new Error('queue down');
        setAside.push(report.body!);
      },
      postpone: async (entries) => void postponed.push(...entries),
      commit: async (handles) => void committed.push(...handles),
      now: () => clock,
      log: { warn: () => {}, error: () => {} },
    });
    return { workBatch, log, setAside, postponed, committed, overlap: () => overlapInGroup, running: () => running };
  }

  it('works a contact’s reports one after another, in the batch’s order, and contacts at once', async () => {
    const l = lane();
    const again = await l.workBatch(
      [message('a', 1), message('b', 1), message('a', 2), message('b', 2), message('a', 3)],
      () => 60_000,
    );
    expect(again).toEqual([]);
    expect(l.overlap()).toBe(false);
    expect(l.log.filter((e) => e.endsWith('a1') || e.endsWith('a2') || e.endsWith('a3'))).toEqual([
      'start a1',
      'end a1',
      'start a2',
      'end a2',
      'start a3',
      'end a3',
    ]);
    // b1 started before a1 ended: the groups ran side by side.
    expect(l.log.indexOf('start b1')).toBeLessThan(l.log.indexOf('end a1'));
  });

  it('a failing report stops its contact: it waits out its retry delay, the later ones come back behind it', async () => {
    const l = lane((body) => body === 'a2');
    const again = await l.workBatch(
      [message('a', 1), message('a', 2, 3), message('a', 3), message('b', 1)],
      () => 60_000,
    );
    expect(again).toEqual(['a2', 'a3']);
    expect(l.log).not.toContain('start a3');
    expect(l.log).toContain('end b1');
    expect(l.postponed).toEqual([
      { receiptHandle: 'rh-a2', seconds: retryDelaySeconds(3) },
      { receiptHandle: 'rh-a3', seconds: 1 },
    ]);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelaySeconds)).toEqual([5, 10, 20, 40, 80, 160, 300, 300]);
  });

  it(`sets a report aside after ${INBOUND_SET_ASIDE_AFTER} receives, so its contact goes on`, async () => {
    const l = lane((body) => body === 'a1');
    const again = await l.workBatch([message('a', 1, INBOUND_SET_ASIDE_AFTER), message('a', 2)], () => 60_000);
    expect(again).toEqual([]);
    expect(l.setAside).toEqual(['a1']);
    expect(l.log).toContain('end a2');
  });

  it(`sets aside untried a report received ${INBOUND_SET_ASIDE_UNTRIED_AFTER} times (it kept ending with no answer)`, async () => {
    const l = lane();
    expect(
      await l.workBatch([message('a', 1, INBOUND_SET_ASIDE_UNTRIED_AFTER), message('a', 2)], () => 60_000),
    ).toEqual([]);
    expect(l.setAside).toEqual(['a1']);
    expect(l.log).toEqual(['start a2', 'end a2']);
  });

  it('keeps a report in place when it cannot be set aside', async () => {
    const l = lane((body) => body === 'a1', true);
    expect(await l.workBatch([message('a', 1, INBOUND_SET_ASIDE_AFTER), message('a', 2)], () => 60_000)).toEqual([
      'a1',
      'a2',
    ]);
  });

  it('starts no report when too little of the invocation is left; they come back untried, in order', async () => {
    const l = lane();
    expect(await l.workBatch([message('a', 1), message('a', 2)], () => 10_000)).toEqual(['a1', 'a2']);
    expect(l.log).toEqual([]);
    expect(l.postponed.map((p) => p.seconds)).toEqual([1, 1]);
  });

  it('a slow batch deletes what it worked every second, so a worker that dies keeps what it did', async () => {
    const slow = lane(() => false, false, 400);
    await slow.workBatch(
      [message('a', 1), message('a', 2), message('a', 3), message('a', 4), message('a', 5)],
      () => 60_000,
    );
    // 400 ms a report: at the 3rd (1.2 s) the first three; the last two (0.8 s later) are left to the batch's end.
    expect(slow.committed).toEqual(['rh-a1', 'rh-a2', 'rh-a3']);
    const quick = lane();
    await quick.workBatch([message('a', 1), message('a', 2)], () => 60_000);
    expect(quick.committed).toEqual([]);
  });

  it('drops a message that is not JSON and goes on', async () => {
    const l = lane();
    expect(await l.workBatch([{ ...message('a', 1), body: 'not json' }, message('a', 2)], () => 60_000)).toEqual([]);
    expect(l.log).toEqual(['start a2', 'end a2']);
  });
});

describe('the unordered lane’s worker', () => {
  it('forwards SES’s notification to the ordered lane in the sender’s group, and works anything else', async () => {
    const forwarded: unknown[] = [];
    const worked: InboundReport[] = [];
    const mailReport: InboundReport = {
      v: 1,
      source: 'email',
      projectId: 'p',
      channelId: 'ch_m',
      receivedAt: 1,
      bodyRef: 'k',
    };
    const workOne = makeUnorderedLane({
      mailReports: async (body) =>
        (body as { notificationType?: string }).notificationType === 'Received' ? [mailReport] : undefined,
      forward: async (copies) => void forwarded.push(...copies),
      work: async (report) => void worked.push(report),
    });
    await workOne({ notificationType: 'Received', mail: { commonHeaders: { from: ['Ana <ana@example.org>'] } } });
    const setAside = { ...mailReport, bodyRef: 'other' };
    await workOne(setAside);
    expect(forwarded).toEqual([{ report: mailReport, contact: 'ana@example.org' }]);
    expect(worked).toEqual([setAside]);
  });
});
