/** The crash ledger's accounting: every acknowledged input against what reached the webhook, and the table. */
import type { RecordedRequest } from '#test/e2e/send-doubles.ts';
import type { ReceivedDelivery } from '#test/e2e/webhooks-support.ts';
import { formatOrder } from '../lib/order-ledger.ts';
import { keyOf } from './drain.ts';
import type { Envelope, Expected, Ledger, LedgerRow } from './types.ts';

/**
 * One row per kind of input. What one event is about (its change) is its message (the id the service derived from
 * the change), or for a reported event, its id (fixed by the Idempotency-Key). One change under two event ids is
 * never allowed; one input that became two changes (a mail sent again after its 250 was lost, both copies stored:
 * two deliveries to the transport) is counted apart. `beforeRecovery`: the keys that arrived before any delivery was
 * sent again by hand.
 */
export function ledgerRows(
  expected: readonly Expected[],
  received: readonly ReceivedDelivery[],
  beforeRecovery: ReadonlySet<string>,
): Pick<Ledger, 'rows' | 'lostKeys' | 'twoIdKeys'> {
  const changeOf = (json: Envelope) =>
    json.data.messageId ? `${json.type}:${String(json.data.messageId)}` : `event:${json.id}`;
  const byKey = new Map<string, Map<string, Set<string>>>();
  const copies = new Map<string, number>();
  for (const delivery of received) {
    const json = delivery.json as Envelope;
    for (const key of keyOf(json)) {
      const changes = byKey.get(key) ?? new Map<string, Set<string>>();
      const ids = changes.get(changeOf(json)) ?? new Set<string>();
      ids.add(json.id);
      changes.set(changeOf(json), ids);
      byKey.set(key, changes);
      copies.set(key, (copies.get(key) ?? 0) + 1);
    }
  }
  const rows = new Map<string, LedgerRow>();
  const lostKeys: string[] = [];
  const twoIdKeys: string[] = [];
  for (const e of expected) {
    const row = rows.get(e.kind) ?? {
      kind: e.kind,
      acknowledged: 0,
      delivered: 0,
      lost: 0,
      failed: 0,
      duplicatesSameId: 0,
      resentTwice: 0,
      twoIds: 0,
    };
    rows.set(e.kind, row);
    row.acknowledged++;
    const changes = byKey.get(e.key);
    if (!changes) {
      row.lost++;
      lostKeys.push(e.key);
      continue;
    }
    if (beforeRecovery.has(e.key)) row.delivered++;
    else row.failed++;
    if (changes.size > 1) row.resentTwice++;
    const ids = [...changes.values()].reduce((n, set) => n + set.size, 0);
    for (const [change, set] of changes)
      if (set.size > 1) {
        row.twoIds++;
        twoIdKeys.push(`${e.key} (${change}) → ${[...set].join(' ')}`);
      }
    row.duplicatesSameId += (copies.get(e.key) ?? 1) - ids;
  }
  return { rows: [...rows.values()], lostKeys, twoIdKeys };
}

/** Duplicates per kill: a delivery of a webhook-id already delivered, counted against the last kill before it. */
export function duplicatesPerKill(received: readonly ReceivedDelivery[], killedAt: readonly number[]): number[] {
  const perKill = killedAt.map(() => 0);
  const delivered = new Set<string>();
  for (const delivery of received) {
    const id = String(delivery.headers['webhook-id']);
    if (delivered.has(id)) {
      const k = killedAt.findLastIndex((t) => t <= delivery.arrivedAt);
      if (k >= 0) perKill[k]!++;
    } else delivered.add(id);
  }
  return perKill;
}

type Failure = {
  type?: string;
  data?: { messageId?: string; payload?: { body?: string }; error?: { message?: string } };
};

/** A deferred send a worker was killed in the middle of: ended `failed`, never sent a second time. */
const foundMidSend = (json: Failure) =>
  json?.type === 'message.failed' && String(json.data?.error?.message ?? '').includes('stopped');

/** Deferred sends found mid-send after a kill. */
export const abandoned = (received: readonly ReceivedDelivery[]) =>
  received.filter((r) => foundMidSend(r.json as Failure)).length;

/**
 * Batch items and scheduled sends the provider got more than once (their bodies are unique). A body the double got
 * more often than messages may have reached it with: a batch resent after its answer was lost becomes a second batch
 * (new message ids, "resent, both kept"), which is not one message sent twice. A message may have reached the
 * provider when it was sent, or when it was found mid-send after a kill (ended failed, "the provider may or may not
 * have it").
 */
export function providerTwice(requests: readonly RecordedRequest[], received: readonly ReceivedDelivery[]): number {
  const bodies = new Map<string, number>();
  for (const r of requests) {
    const body = new URLSearchParams(r.body).get('Body') ?? '';
    if (body.startsWith('batch ') || body.startsWith('sched ')) bodies.set(body, (bodies.get(body) ?? 0) + 1);
  }
  const messagesByBody = new Map<string, Set<string>>();
  for (const r of received) {
    const json = r.json as Failure;
    const body = json?.data?.payload?.body;
    if ((json?.type === 'message.sent' || foundMidSend(json)) && body)
      messagesByBody.set(body, (messagesByBody.get(body) ?? new Set()).add(String(json.data?.messageId)));
  }
  return [...bodies.entries()].filter(([b, c]) => c > Math.max(1, messagesByBody.get(b)?.size ?? 0)).length;
}

/** The ledger as a table. */
export function formatLedger(ledger: Ledger): string {
  const header = [
    'input',
    'acknowledged',
    'delivered',
    'failed, recovered',
    'lost',
    'dup same id',
    'resent, both kept',
    'two ids',
  ];
  const cells = (r: LedgerRow) => [
    r.acknowledged,
    r.delivered,
    r.failed,
    r.lost,
    r.duplicatesSameId,
    r.resentTwice,
    r.twoIds,
  ];
  const lines = ledger.rows.map((r) => [r.kind, ...cells(r)].map(String));
  const total = ledger.rows.reduce((t, r) => cells(r).map((n, i) => t[i]! + n), [0, 0, 0, 0, 0, 0, 0]);
  lines.push(['all', ...total.map(String)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `${ledger.kills} kills; duplicates (same webhook-id) after each: ${ledger.duplicatesPerKill.join(', ')}`,
    `batch items and scheduled sends the provider got twice: ${ledger.providerTwice}; found mid-send after a kill ` +
      `(ended failed, never sent again): ${ledger.abandoned}`,
    `deliveries failed (sent again by hand): ${ledger.failedDeliveries}; still pending when the drain stopped: ${ledger.pendingDeliveries}`,
    `in the service's dead-letter queues: ${
      Object.entries(ledger.deadLetters)
        .map(([q, n]) => `${q} ${n}`)
        .join(', ') || 'none'
    }`,
    fmt(header),
    ...lines.map(fmt),
    '',
    formatOrder(ledger.order),
    // A loss comes with what the services said meanwhile: where an input was dropped or stopped.
    ...(ledger.lostKeys.length
      ? [
          '',
          `lost: ${ledger.lostKeys.slice(0, 20).join(', ')}`,
          ...ledger.lostTrace,
          `the run's log (${ledger.runLog.length}):`,
          ...ledger.runLog,
          `the services' warnings and errors (${ledger.serviceWarnings.length}):`,
          ...ledger.serviceWarnings.slice(-150),
        ]
      : []),
  ].join('\n');
}
