/**
 * The volume bench's two views of when messages reached the provider: the provider double's arrival times (noted in
 * the bench process) and the service's own send times (noted in the service as each request left it, by
 * ./send-stamps.mjs). The busiest sliding second of each, and how far behind the send the double noted each arrival.
 */
import { existsSync, readFileSync } from 'node:fs';
import { busiestWindow } from '#test/support/busiest-second.ts';

/** One request to the double as the service sent it (./send-stamps.mjs). */
export interface SendStamp {
  /** When its bytes left (epoch ms). */
  at: number;
  body: string;
  /** On a kept-alive connection, or on a new one (its bytes left after the handshake). */
  connection: 'kept' | 'new' | undefined;
  /** Ms between the request being handed to Node and its bytes leaving. */
  delay: number;
}

/** Every stamp of the stamps' file, in the order written. */
export function readSendDetails(file: string): SendStamp[] {
  if (!existsSync(file)) return [];
  const out: SendStamp[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [at, body, connection, delay] = line.split('\t');
    if (body === undefined) continue;
    out.push({
      at: Number(at),
      body,
      connection: connection === 'new' || connection === 'kept' ? connection : undefined,
      delay: Number(delay ?? 0) || 0,
    });
  }
  return out;
}

/** The instants each body left the service (several when it was sent more than once), from the stamps' file. */
export function readSendStamps(file: string): Map<string, number[]> {
  const stamps = new Map<string, number[]>();
  for (const { at, body } of readSendDetails(file)) {
    const list = stamps.get(body) ?? [];
    list.push(at);
    stamps.set(body, list);
  }
  return stamps;
}

/**
 * The connections the sends of `bodies` left on: how many opened a new one and how long their bytes waited for it,
 * and the busiest second had every send left when it was handed to Node (what the slots let through).
 */
function connectionsLine(file: string, bodies: readonly string[]): string {
  const wanted = new Set(bodies);
  const details = readSendDetails(file).filter((d) => wanted.has(d.body));
  if (!details.some((d) => d.connection)) return '';
  const fresh = details
    .filter((d) => d.connection === 'new')
    .map((d) => d.delay)
    .sort((a, b) => a - b);
  const late = details.filter((d) => d.delay > 10);
  const at = (list: number[], p: number) => list[Math.min(list.length - 1, Math.floor(list.length * p))] ?? 0;
  const handed = busiestWindow(details.map((d) => d.at - d.delay)).count;
  return (
    `\n  connections: ${fresh.length} sends opened a new one (bytes left after p50 ${at(fresh, 0.5)} ms, ` +
    `max ${fresh.at(-1) ?? 0} ms), ${late.length} left over 10 ms after being handed to Node ` +
    `(${late.filter((d) => d.connection === 'kept').length} on a kept one); busiest second as handed to Node: ${handed}`
  );
}

/**
 * The service's view of `bodies`: the busiest second of their sends as it stamped them, and how long after each send
 * the double noted its arrival; NaN when the service left no stamps (a checkout without the stamps hook).
 */
export function sendView(
  file: string,
  arrivals: Map<string, number[]>,
  bodies: readonly string[],
  pace: number,
): { busiest: number; line: string } {
  const stamps = readSendStamps(file);
  const sends = bodies.flatMap((b) => stamps.get(b) ?? []);
  if (!sends.length) return { busiest: Number.NaN, line: "  the service's send stamps: none" };
  const lags = bodies
    .flatMap((b) => {
      const sent = stamps.get(b)?.[0];
      const got = arrivals.get(b)?.[0];
      return sent !== undefined && got !== undefined ? [got - sent] : [];
    })
    .sort((a, b) => a - b);
  const at = (p: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * p))];
  const fullest = busiestWindow(sends);
  const busiest = fullest.count;
  // Sends per whole second from the first: the drain's start (its first seconds) and where the busiest one sits.
  const first = Math.min(...sends);
  const crowded = busiest > pace ? `\n  ${crowdedSecond(sends, first, fullest.from)}` : '';
  const perSecond: number[] = [];
  for (const t of sends) {
    const s = Math.floor((t - first) / 1000);
    perSecond[s] = (perSecond[s] ?? 0) + 1;
  }
  const counts = Array.from(perSecond, (n) => n ?? 0);
  const busiestAt = counts.indexOf(Math.max(...counts));
  return {
    busiest,
    line:
      `  the service's send stamps (${sends.length}): busiest second ${busiest}; the double noted each arrival ` +
      `after its send by p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${lags.at(-1)} ms${crowded}` +
      `${connectionsLine(file, bodies)}\n` +
      `  sends per second from the first: ${counts.slice(0, 12).join(', ')}, ...; fullest whole second ${busiestAt}: ` +
      `${counts.slice(Math.max(0, busiestAt - 2), busiestAt + 3).join(', ')} (seconds ${Math.max(0, busiestAt - 2)}-${busiestAt + 2})\n` +
      `  ${shortfall(counts, pace, Math.max(...sends) - first)}`,
  };
}

/**
 * Where the busiest sliding second of `sends` (epoch ms) begins, from the first send, and its sends per 100 ms: a
 * second above the pace shows whether its sends were let through bunched (slots) or left bunched (a stalled loop).
 */
function crowdedSecond(sends: readonly number[], first: number, from: number): string {
  const tenths = Array.from(
    { length: 10 },
    (_, k) => sends.filter((t) => t >= from + k * 100 && t < from + (k + 1) * 100).length,
  );
  return `busiest second from ${((from - first) / 1000).toFixed(2)} s after the first send, per 100 ms: ${tenths.join(', ')}`;
}

/**
 * Where a drain's time beyond the pace went, from its sends per whole second: the seconds short of the pace while it
 * started (before the first that sent at least 95 % of it), the time its last sends took after the last such second
 * beyond what the pace needed for them, and the rest between (the pacer's own margin, stalls, sends that took their
 * slot again). A second short of the pace by `k` sends costs `k / pace` seconds, never made up: no second may hold
 * more than the pace.
 */
export function shortfall(counts: readonly number[], pace: number, tookMs: number): string {
  const full = (n: number) => n >= pace * 0.95;
  const first = counts.findIndex(full);
  const last = counts.findLastIndex(full);
  const sends = counts.reduce((a, b) => a + b, 0);
  const beyond = tookMs / 1000 - (sends - 1) / pace;
  if (first < 0) return `time beyond the pace ${beyond.toFixed(1)} s; no second reached 95 % of it`;
  let start = 0;
  for (let i = 0; i < first; i++) start += (pace - counts[i]!) / pace;
  const after = counts.slice(last + 1).reduce((a, b) => a + b, 0);
  const end = tookMs / 1000 - (last + 1) - after / pace;
  // Between, the longest run of seconds short of 95 % (a stall, a run of retakes) and what it cost.
  let dip = { from: 0, to: -1, short: 0 };
  for (let i = first, from = -1, short = 0; i <= last + 1; i++) {
    if (i <= last && !full(counts[i]!)) {
      if (from < 0) [from, short] = [i, 0];
      short += pace - counts[i]!;
    } else if (from >= 0) {
      if (i - from > dip.to - dip.from + 1) dip = { from, to: i - 1, short };
      from = -1;
    }
  }
  const longest =
    dip.to < dip.from ? 'none short' : `longest dip seconds ${dip.from}-${dip.to}, ${dip.short} sends short`;
  return (
    `time beyond the pace ${beyond.toFixed(1)} s: start ${start.toFixed(1)} s (seconds 0-${first - 1} short of 95 %), ` +
    `end ${end.toFixed(1)} s (${after} sends after second ${last}), between ${(beyond - start - end).toFixed(1)} s ` +
    `(${longest})`
  );
}
