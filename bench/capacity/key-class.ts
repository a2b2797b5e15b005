/**
 * A partition key's class: the key with each id replaced by what it stands for (`PRJ#prj_4ta16f…` → `PRJ#<project>`,
 * `DLV#prj_…#int_…` → `DLV#<project>#<webhook>`), so keys that scale alike are counted together; a key with no
 * placeholder left (`OUTBOX`, `PROJECTS`) is one partition for the whole service.
 */

/** What a placeholder stands for decides how a scenario spreads load over its values. */
export type Placeholder =
  | 'project'
  | 'channel'
  | 'webhook'
  | 'integration'
  | 'bot'
  | 'token'
  | 'contact'
  | 'conversation'
  | 'address'
  | 'file'
  | 'message'
  | 'event'
  | 'hash'
  | 'provider-id'
  | 'id'
  | 'time'
  | 'shard';

/**
 * Placeholders whose values are new for (almost) every request: a message, an event, an idempotency key's hash, a
 * provider's message id. Their partitions each take a request or a few over a lifetime, never a rate.
 */
export const PER_ITEM: ReadonlySet<Placeholder> = new Set(['message', 'event', 'hash', 'provider-id', 'id', 'time']);

/** Values the workload knows the meaning of (webhook ids, token hashes, contacts), checked before the patterns. */
export type KnownValues = Map<string, Placeholder>;

const PATTERNS: [RegExp, Placeholder][] = [
  [/^prj_[a-z0-9]{20}$/, 'project'],
  [/^ch_[a-z0-9]{20}$/, 'channel'],
  [/^int_[a-z0-9]{20}$/, 'integration'],
  [/^bot_[a-z0-9]{20}$/, 'bot'],
  [/^msg_[a-z0-9]{20}$/, 'message'],
  [/^evt_[a-z0-9]{20}$/, 'event'],
  [/^[0-9a-f]{64}$/, 'hash'],
  [/^\+?\d{6,15}$/, 'contact'],
  [/^[^@\s]+@[^@\s]+$/, 'address'],
  [/^\d{4}-\d{2}(-\d{2}(T[\d:.]+Z?)?)?$/, 'time'],
  // A shard suffix (`OUTBOX#07`, `DLV#…#03`): one of a fixed number of partitions a key is spread over.
  [/^\d{1,3}$/, 'shard'],
  [/^\d{10,}$/, 'time'],
];

/** A segment kept as it is: a word naming a kind of item or a provider (`OUTBOX`, `twilio`, `whatsapp-cloud`). */
const CONSTANT = /^[A-Za-z][A-Za-z_-]{0,30}$/;

function segmentClass(segment: string, known: KnownValues, after?: string): string {
  const placeholder = known.get(segment) ?? PATTERNS.find(([re]) => re.test(segment))?.[1];
  if (placeholder) return `<${placeholder}>`;
  // A provider's id follows its provider's name (`PMID#twilio#SM…`).
  if (after && ['twilio', 'whatsapp-cloud', 'smtp', 'ses'].includes(after)) return '<provider-id>';
  if (CONSTANT.test(segment)) return segment;
  return '<id>';
}

/** The class of a table or index partition key value (segments split on `#`). */
export function keyClass(key: string, known: KnownValues): string {
  const segments = key.split('#');
  return segments.map((s, i) => segmentClass(s, known, segments[i - 1])).join('#');
}

/** The class of a FIFO message group id: its owner (a project, a webhook) and the hashed key under it. */
export function groupClass(group: string, known: KnownValues): string {
  const dot = group.indexOf('.');
  if (dot < 0) return segmentClass(group, known);
  return `${segmentClass(group.slice(0, dot), known)}.<conversation>`;
}

/** The placeholders a class holds. */
export function placeholdersOf(cls: string): Placeholder[] {
  return [...cls.matchAll(/<([a-z-]+)>/g)].map((m) => m[1] as Placeholder);
}

/** The class with its shard suffix put back to a value: `OUTBOX#<shard>` and `07` → which shard a key is. */
export function shardOfKey(key: string, cls: string): string | undefined {
  const segments = key.split('#');
  const i = cls.split('#').indexOf('<shard>');
  return i < 0 ? undefined : segments[i];
}
