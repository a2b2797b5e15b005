/**
 * Order per contact at an ordered webhook, for the crash ledger: an input posted after another input of the same
 * contact was acknowledged must reach the webhook after it. Inputs whose requests overlapped (sent concurrently) have
 * no order between them; an input retried after a crash counts from its first attempt (the earliest it could have
 * been queued) to its acknowledgement.
 */
export interface OrderedInput {
  /** The row it is counted in (the kind of input). */
  kind: string;
  /** Channel and contact: what is ordered together. */
  contact: string;
  /** What identifies its event at the webhook. */
  key: string;
  /** When its first attempt was sent (ms). */
  sentAt: number;
  /** When it was acknowledged (ms). */
  ackAt: number;
}

export interface OrderRow {
  kind: string;
  /** Contacts the inputs came from. */
  contacts: number;
  acknowledged: number;
  /** Acknowledged inputs whose event never reached the ordered webhook. */
  missing: number;
  /** Inputs overtaken by at least one input of their contact that was posted after their acknowledgement. */
  outOfOrder: number;
  /** The most such later inputs that overtook one input. */
  worstOvertaken: number;
}

/**
 * `arrivals`: each event key with the time its first delivery reached the ordered webhook. Compares every pair of a
 * contact's inputs (a few thousand per run: quadratic is fine).
 */
export function orderLedger(inputs: readonly OrderedInput[], arrivals: ReadonlyMap<string, number>): OrderRow[] {
  const rows = new Map<string, OrderRow>();
  const byContact = new Map<string, OrderedInput[]>();
  for (const input of inputs) {
    const row = rows.get(input.kind) ?? {
      kind: input.kind,
      contacts: 0,
      acknowledged: 0,
      missing: 0,
      outOfOrder: 0,
      worstOvertaken: 0,
    };
    rows.set(input.kind, row);
    row.acknowledged++;
    if (!arrivals.has(input.key)) row.missing++;
    const group = byContact.get(input.contact) ?? [];
    if (!group.length) row.contacts++;
    group.push(input);
    byContact.set(input.contact, group);
  }
  for (const group of byContact.values()) {
    for (const earlier of group) {
      const at = arrivals.get(earlier.key);
      if (at === undefined) continue;
      let overtaken = 0;
      for (const later of group) {
        const laterAt = arrivals.get(later.key);
        if (later.sentAt > earlier.ackAt && laterAt !== undefined && laterAt < at) overtaken++;
      }
      if (!overtaken) continue;
      const row = rows.get(earlier.kind)!;
      row.outOfOrder++;
      row.worstOvertaken = Math.max(row.worstOvertaken, overtaken);
    }
  }
  return [...rows.values()];
}

/** The order rows as a table. */
export function formatOrder(rows: readonly OrderRow[]): string {
  const header = [
    'message.received at the ordered webhook',
    'contacts',
    'acknowledged',
    'missing',
    'out of order',
    'worst overtaken by',
  ];
  const lines = rows.map((r) =>
    [r.kind, r.contacts, r.acknowledged, r.missing, r.outOfOrder, r.worstOvertaken].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(header), ...lines.map(fmt)].join('\n');
}
