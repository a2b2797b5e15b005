/**
 * Where a lost input stopped, read from the service's table before the run's data goes: the items that mention it
 * (its message record, a received mail's subject), each with the event marks it still holds. An input with no item
 * was dropped before its change was written (ingress, the queues); one whose item holds a mark had its event left
 * unpublished; one whose item holds none had its event published, and the items naming that event (its deliveries,
 * its poll entry) tell how far it went.
 */
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { LocalAws } from '#local/emulators.ts';
import { marksOf } from '#shared/events/index.ts';
import { tableAt } from './queues.ts';

/** The text a lost key's items are searched for: what follows the event type (`message.received:subject:<s>`). */
function needleOf(key: string): string {
  const parts = key.split(':');
  return parts[1] === 'subject' || parts[1] === 'marker' ? parts.slice(2).join(':') : parts.slice(1).join(':');
}

/** One line per item that mentions a lost key (at most five a key), or a line saying none does. */
export async function traceLost(localAws: () => Promise<LocalAws>, lostKeys: string[]): Promise<string[]> {
  if (!lostKeys.length) return [];
  const table = await tableAt(localAws);
  const keys = lostKeys.slice(0, 20).map((key) => ({ key, needle: needleOf(key), found: [] as string[] }));
  // Then the items that name an event those items name (its deliveries, its poll entry): where a published event went.
  const events = new Map<string, string[]>();
  try {
    for (const pass of ['inputs', 'events'] as const) {
      if (pass === 'events' && !events.size) break;
      let start: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await table.client.send(new ScanCommand({ TableName: table.tableName, ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) {
          const text = JSON.stringify(item);
          if (pass === 'inputs')
            for (const k of keys) {
              if (k.found.length >= 5 || !text.includes(k.needle)) continue;
              k.found.push(describe(item));
              for (const id of text.match(/evt_[0-9a-z]{20}/g) ?? []) if (!events.has(id)) events.set(id, []);
            }
          else
            for (const [id, lines] of events)
              if (lines.length < 10 && text.includes(id) && !keys.some((k) => text.includes(k.needle)))
                lines.push(describe(item));
        }
        start = page.LastEvaluatedKey;
      } while (start);
    }
  } finally {
    table.client.destroy();
  }
  return [
    ...keys.flatMap((k) => [
      `${k.key}: ${k.found.length ? `${k.found.length} items mention it` : 'no item mentions it (dropped before its change was written)'}`,
      ...k.found,
    ]),
    ...[...events].flatMap(([id, lines]) => [`${id}: ${lines.length} other items name it`, ...lines]),
  ];
}

/** An item as one line: its keys, its status if any, the event marks it still holds and when the latest was written. */
function describe(item: Record<string, unknown>): string {
  const marks = marksOf(item);
  const status = typeof item.status === 'string' ? `, status ${item.status}` : '';
  const written = marks[0]?.writtenAt ? ` (written ${new Date(marks[0].writtenAt).toISOString()})` : '';
  const pending = marks.length ? marks.map((m) => m.eventId).join(' ') : 'none';
  return `  ${String(item.pk)} ${String(item.sk)}${status}, event marks pending: ${pending}${written}`;
}
