import type { DeliveryRecord } from './model.ts';
import type { EventBodies } from './ports.ts';

/**
 * Records as a retry sends them again: each with its body, read (one batch for all) from where its event's body is
 * stored once, unless the record has its own (written before bodies were stored per event) or a large body's key.
 * A record whose body is gone (past its retention) comes back without one.
 */
export async function withStoredBodies<R extends Pick<DeliveryRecord, 'eventId' | 'body' | 'bodyRef'>>(
  records: readonly R[],
  bodies: EventBodies,
): Promise<R[]> {
  const missing = records.filter((r) => r.body === undefined && r.bodyRef === undefined).map((r) => r.eventId);
  if (!missing.length) return [...records];
  const found = await bodies.get([...new Set(missing)]);
  return records.map((r) => {
    const body = r.body === undefined && r.bodyRef === undefined ? found.get(r.eventId) : undefined;
    return body === undefined ? r : { ...r, body };
  });
}
