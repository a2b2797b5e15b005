/** The crash ledger's inputs through the API: sends with a custom token, batches, scheduled sends, reported events. */
import type { Tally } from './tally.ts';
import { sidOf, type World } from './world.ts';

export function apiInputs(world: World, tally: Tally) {
  const { base, main, sqs } = world;
  const { ack, untilAcknowledged } = tally;
  const post = (path: string, token: string, idempotencyKey: string, body: unknown, timeoutMs = 15_000) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  /** A reported event (`POST /events` with an Idempotency-Key) on `channelId` of `projectId`. */
  const report = async (projectId: string, channelId: string, marker: string) => {
    const adminKey = world.service.process.adminKey;
    const body = { channelId, type: 'message.failed', data: { marker } };
    const res = await post(`/admin/v1/projects/${projectId}/events`, adminKey, marker, body, 10_000);
    return res.status === 202;
  };
  return {
    async send() {
      const n = tally.next();
      let messageId = '';
      const ok = await untilAcknowledged(async () => {
        const body = { to: '+5511988887777', body: `send ${n}` };
        const res = await post('/api/integration/generic', main.sendToken, `send-${n}`, body);
        if (res.status !== 200) return false;
        messageId = ((await res.json()) as { messageId: string }).messageId;
        return true;
      });
      if (!ok) return;
      ack('send → message.sent', `message.sent:${messageId}`);
      tally.sentSids.push({ messageId, sid: sidOf(`send ${n}`) });
    },
    // A batch of 5 (its Idempotency-Key resent until answered): each queued item must end sent or failed, once.
    async batch() {
      const n = tally.next();
      let ids: string[] = [];
      const ok = await untilAcknowledged(async () => {
        const body = {
          messages: Array.from({ length: 5 }, (_, i) => ({ to: '+5511988887777', body: `batch ${n} ${i}` })),
        };
        const res = await post('/api/integration/generic/batch', main.pacedToken, `batch-${n}`, body);
        if (res.status !== 202) return false;
        ids = ((await res.json()) as { items: { messageId: string }[] }).items.map((i) => i.messageId);
        return true;
      });
      if (ok) for (const id of ids) ack('batch item → sent or failed', `outcome:${id}`);
    },
    // A send scheduled a minute ahead (the shortest allowed): it must leave once, through the kills.
    async scheduled() {
      const n = tally.next();
      let messageId = '';
      const sendAt = new Date(Date.now() + 61_000).toISOString();
      const ok = await untilAcknowledged(async () => {
        const body = { to: '+5511988887777', body: `sched ${n}`, sendAt };
        const res = await post('/api/integration/generic', main.pacedToken, `scheduled-${n}`, body);
        if (res.status !== 202) return false;
        messageId = ((await res.json()) as { messageId: string }).messageId;
        return true;
      });
      if (ok) ack('scheduled send → sent or failed', `outcome:${messageId}`);
      await new Promise((r) => setTimeout(r, 200));
    },
    async report() {
      const marker = `report-${tally.next()}`;
      const ok = await untilAcknowledged(() => report(main.projectId, main.twilioChannelId, marker));
      if (ok) ack('POST /events → event', `message.failed:marker:${marker}`);
    },
    async sqsDestination() {
      const marker = `sqs-${tally.next()}`;
      const ok = await untilAcknowledged(() => report(sqs.projectId, sqs.channelId, marker));
      if (ok) ack('POST /events → SQS destination', `message.failed:marker:${marker}`);
    },
  };
}
