import { indexes } from './table.ts';
import { shardOf, shardSuffix } from '../kernel/shards.ts';

/**
 * Every item layout of the one table, in one place: the key of each item kind, the prefixes its listings query,
 * and the entries it puts in the background index. Adapters never spell a `PRJ#`-style key themselves.
 */

const projectPartition = (projectId: string) => `PRJ#${projectId}`;
const botPartition = (botId: string) => `BOT#${botId}`;
const CREDITS_PREFIX = 'CREDITS#';
const suppressionPartition = (projectId: string, channelId: string) => `SUPP#${projectId}#${channelId}`;
const SUPPRESSION_PREFIX = 'S#';
/** Addresses compare case-insensitively. */
const inboundAddressPartition = (address: string) => `INADDR#${address.trim().toLowerCase()}`;

/**
 * A webhook's delivery records, failed-delivery entries and hourly counters are each spread over this many
 * partitions: one webhook may take thousands of deliveries a second, and one partition takes 1,000 write units.
 */
export const WEBHOOK_PARTITIONS = 16;
const webhookPartitions = (partition: (shard: string) => string) =>
  Array.from({ length: WEBHOOK_PARTITIONS }, (_, shard) => partition(shardSuffix(shard)));
/** The partition of a webhook's items that `id` (a delivery id) falls in. */
const webhookShardOf = (id: string) => shardSuffix(shardOf(id, WEBHOOK_PARTITIONS));

const deliveryPartition = (projectId: string, integrationId: string, shard: string) =>
  `DLV#${projectId}#${integrationId}#${shard}`;
const webhookStatsPartition = (projectId: string, integrationId: string, shard: string) =>
  `WHSTATS#${projectId}#${integrationId}#${shard}`;
/** Every partition of a webhook's hourly counters (a chart reads them all and adds them up). */
export const webhookStatsPartitions = (projectId: string, integrationId: string) =>
  webhookPartitions((shard) => webhookStatsPartition(projectId, integrationId, shard));

/** Partitions of one minute's due entries. */
export const DUE_PARTITIONS = 8;
const duePartition = (minuteMs: number, shard: string) =>
  `DUE#${new Date(minuteMs).toISOString().slice(0, 16)}#${shard}`;
/** Every partition of one minute's due entries (the sweep reads them all). */
export const duePartitions = (minuteMs: number) =>
  Array.from({ length: DUE_PARTITIONS }, (_, shard) => duePartition(minuteMs, shardSuffix(shard)));

/** The primary key of each item kind. */
export const keys = {
  project: (projectId: string) => ({ pk: projectPartition(projectId), sk: 'PRJ' }),
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  credits: (projectId: string, month: string) => ({ pk: projectPartition(projectId), sk: `${CREDITS_PREFIX}${month}` }),
  rateLimit: (key: string) => ({ pk: `RL#${key}`, sk: 'RL' }),
  idempotency: (scopedKeyHash: string) => ({ pk: `IDEM#${scopedKeyHash}`, sk: 'IDEM' }),
  channel: (projectId: string, channelId: string) => ({ pk: projectPartition(projectId), sk: `CH#${channelId}` }),
  integration: (projectId: string, integrationId: string) => ({
    pk: projectPartition(projectId),
    sk: `INT#${integrationId}`,
  }),
  /**
   * When the project's webhooks last changed, or will have by: written before each change of one, in a partition
   * of its own, so fan-out instances can check a list they remember with a one-item read that the project's other
   * traffic does not compete with.
   */
  webhookChanges: (projectId: string) => ({ pk: `WHCHG#${projectId}`, sk: 'WHCHG' }),
  /** Guard item: which webhook holds the project's one enabled-general-webhook slot. */
  generalWebhook: (projectId: string) => ({ pk: projectPartition(projectId), sk: 'GENERAL_WEBHOOK' }),
  /** A sent message, under its channel in time order (`sortableTime` sorts as text). Sandbox ones form the outbox. */
  message: (projectId: string, channelId: string, sortableTime: string, messageId: string) => ({
    pk: projectPartition(projectId),
    sk: `MSG#${channelId}#${sortableTime}#${messageId}`,
  }),
  /** A message's status and history, read by message id alone. */
  messageStatus: (messageId: string) => ({ pk: `MSG#${messageId}`, sk: 'MSG' }),
  /**
   * A deferred message waiting to be put on the outbound queue, under the minute it is due in, spread over
   * {@link DUE_PARTITIONS} partitions by message id (every tenant's sends due that minute land there: a 1,000-item
   * batch writes about 60 per partition). Deleted once enqueued.
   */
  due: (minuteMs: number, messageId: string, dueAt: string) => ({
    pk: duePartition(minuteMs, shardSuffix(shardOf(messageId, DUE_PARTITIONS))),
    sk: `${dueAt}#${messageId}`,
  }),
  /** Where the due sweep goes on from (the one sweeper writes it once a run). */
  dueCursor: () => ({ pk: 'DUECURSOR', sk: 'DUECURSOR' }),
  /** A batch: its items' message ids and the refused ones' count (its progress is read from the items). */
  batch: (batchId: string) => ({ pk: `BATCH#${batchId}`, sk: 'BATCH' }),
  /** A scheduled message listed under its channel by time (the console's list; the message item is the truth). */
  channelScheduled: (channelId: string, sendAt: string, messageId: string) => ({
    pk: `CHSCHED#${channelId}`,
    sk: `S#${sendAt}#${messageId}`,
  }),
  /** A batch listed under its channel, newest last. */
  channelBatch: (channelId: string, createdAt: string, batchId: string) => ({
    pk: `CHBATCH#${channelId}`,
    sk: `B#${createdAt}#${batchId}`,
  }),
  /** The next free instant of a channel's pace (batch and scheduled sends). */
  channelPace: (channelId: string) => ({ pk: `CHPACE#${channelId}`, sk: 'PACE' }),
  /**
   * When each of a run of a channel's pace slots last let a send through (one attribute a slot, a run of them an
   * item: the sends a worker takes together take their slots in one write).
   */
  channelPaceSlots: (channelId: string, run: number) => ({ pk: `CHPACE#${channelId}#${run}`, sk: 'SLOTS' }),
  /**
   * Which message a provider's id belongs to, on the channel that sent it: how a receipt finds the message a send
   * recorded it for. One item per channel under the id: a provider id is unique only within its provider account, and
   * a channel's provider can be any server its project names, so one channel's sends must never take over another's.
   */
  providerMessageId: (provider: string, providerMessageId: string, channelId: string) => ({
    pk: `PMID#${provider}#${providerMessageId}`,
    sk: `CH#${channelId}`,
  }),
  /** The same lookup as sends wrote it before it was kept per channel (read until those items expire). */
  providerMessageIdUnscoped: (provider: string, providerMessageId: string) => ({
    pk: `PMID#${provider}#${providerMessageId}`,
    sk: 'PMID',
  }),
  /** A copy of a channel item found by channel id alone (inbound URLs carry no project). */
  channelById: (channelId: string) => ({ pk: `CHID#${channelId}`, sk: 'CHID' }),
  /** An email channel listed under its mailbox (inbound mail carries only the address). */
  inboundAddress: (address: string, projectId: string, channelId: string) => ({
    pk: inboundAddressPartition(address),
    sk: `CH#${projectId}#${channelId}`,
  }),
  /**
   * A webhook delivery (one event for one webhook, attempts appended). Not under `PRJ#`, and not one partition per
   * webhook either: every attempt writes one, so a webhook's records spread over {@link WEBHOOK_PARTITIONS}
   * partitions by delivery id. Delivery ids start with the event time, so the listing merges those partitions'
   * Queries newest first (`deliveryPartitions`).
   */
  delivery: (projectId: string, integrationId: string, deliveryId: string) => ({
    pk: deliveryPartition(projectId, integrationId, webhookShardOf(deliveryId)),
    sk: deliveryId,
  }),
  /**
   * An event's body, stored once for every webhook it goes to (not in each delivery record): read by a retry by hand
   * and by `recover`. Its own partition per event, written by the fan-out.
   */
  eventBody: (eventId: string) => ({ pk: `EVTBODY#${eventId}`, sk: 'BODY' }),
  /**
   * When the next delivery attempt to a paced webhook may start (`rateLimitPerSecond`, shared/webhooks/pacing.ts):
   * one item per lane of its limit (lane 0 keeps the key a limit of one lane always had).
   */
  webhookPace: (projectId: string, integrationId: string, lane = 0) => ({
    pk: `PACE#${projectId}#${integrationId}${lane ? `#${shardSuffix(lane)}` : ''}`,
    sk: 'PACE',
  }),
  /** Whether a webhook has been failing and since when (written only when that changes). */
  webhookHealth: (projectId: string, integrationId: string) => ({
    pk: projectPartition(projectId),
    sk: `WHHEALTH#${integrationId}`,
  }),
  /**
   * One hour of a webhook's attempt counters (`hour` = `2026-11-24T06`, UTC) in one of its
   * {@link WEBHOOK_PARTITIONS} counter partitions (`shard`, 0 to 15, any: each writer adds to the one it picked).
   * A day is one Query by hour range per partition, added up.
   */
  webhookHour: (projectId: string, integrationId: string, hour: string, shard: number) => ({
    pk: webhookStatsPartition(projectId, integrationId, shardSuffix(shard % WEBHOOK_PARTITIONS)),
    sk: hour,
  }),
  /** That a notice's email was sent (`shared/webhooks/send-notice-email.ts`): a repeated job sends nothing. */
  noticeEmail: (projectId: string, eventId: string) => ({ pk: `NOTICEMAIL#${projectId}#${eventId}`, sk: 'NOTICEMAIL' }),
  /**
   * The bot itself, its project id, and its knowledge state: the segments of its search index (`ksegs`, a map of
   * segment id → S3 key and counts, kept short by background merges), `kver` (counts changes), `kmerge` (until when
   * a merge holds the bot), `kretired` (merged-away segment objects, deleted a while later). Nothing per file:
   * files are their own items. Keyed by bot id so the Bots API resolves a bot in one consistent GetItem and can tell
   * another project's bot (403) from none (404).
   */
  bot: (botId: string) => ({ pk: botPartition(botId), sk: 'BOT' }),
  /**
   * One knowledge file of a bot (status, chunks, error), keyed by its name so the listing pages through a bot's
   * files by name (a name is at most 255 UTF-16 units, at most 765 bytes of UTF-8: within the 1,024-byte sort key).
   */
  knowledgeFile: (botId: string, fileName: string) => ({ pk: botPartition(botId), sk: `FILE#${fileName}` }),
  /**
   * Which file name a file key stands for (`fileKeyOf(name)`, a hash): written when an upload URL is issued, read
   * when the browser's object lands (its S3 key carries the file key, not the name).
   */
  knowledgeFileName: (botId: string, fileKey: string) => ({ pk: botPartition(botId), sk: `FKEY#${fileKey}` }),
  /**
   * A conversation of a channel with one contact: the contact's last inbound time (WhatsApp's window).
   * Its own partition: every inbound message of the contact updates it, and the send reads it with the channel.
   */
  conversation: (channelId: string, contact: string) => ({ pk: `CONV#${channelId}#${contact}`, sk: 'CONV' }),
  /** A contact's opt-out on a channel, listed under the channel (`…/suppressions`). */
  suppression: (projectId: string, channelId: string, contact: string) => ({
    pk: suppressionPartition(projectId, channelId),
    sk: `${SUPPRESSION_PREFIX}${contact}`,
  }),
  /** Which conversation a mail (by its Message-ID, as written in headers) belongs to: how a reply finds its thread. */
  mailThread: (channelId: string, messageIdHeader: string) => ({
    pk: `THREAD#${channelId}#${messageIdHeader}`,
    sk: 'THREAD',
  }),
  /** A project management key (`sbm_…`), found by its hash when presented. */
  managementKey: (keyHash: string) => ({ pk: `MKEY#${keyHash}`, sk: 'MKEY' }),
  /** The project's listing entry for one of its management keys (carries the key's hash, to revoke it). */
  managementKeyEntry: (projectId: string, keyId: string) => ({ pk: projectPartition(projectId), sk: `MKEY#${keyId}` }),
  /** A portal link's one-time code, by its hash: deleted by the exchange that uses it. */
  portalCode: (codeHash: string) => ({ pk: `PCODE#${codeHash}`, sk: 'PCODE' }),
  /** A project's portal session generation: ending every session moves it on, and older sessions stop working. */
  portalGeneration: (projectId: string) => ({ pk: `PORTAL#${projectId}`, sk: 'GEN' }),
  /** A portal session, beside its project's generation (both are read in one BatchGetItem per request). */
  portalSession: (projectId: string, sessionId: string) => ({ pk: `PORTAL#${projectId}`, sk: `SESSION#${sessionId}` }),
  /**
   * One audit entry of a project, in time order (`at` then the entry's id). Its own partition per project: only
   * management changes write here, and the log is read newest first a page at a time.
   */
  auditEntry: (projectId: string, at: string, entryId: string) => ({
    pk: `AUDIT#${projectId}`,
    sk: `${at}#${entryId}`,
  }),
  /** The project's listing entry for one of its bots. */
  botEntry: (projectId: string, botId: string) => ({ pk: projectPartition(projectId), sk: `BOT#${botId}` }),
};

/** The items of one kind under one partition, as a Query reads them (`pk = :pk AND begins_with(sk, :prefix)`). */
export interface Collection {
  pk: string;
  skPrefix: string;
}

/** A Query's key condition over a collection, with the further values the query's other expressions use. */
export function inCollection(collection: Collection, values: Record<string, unknown> = {}) {
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': collection.pk, ':prefix': collection.skPrefix, ...values },
  };
}

/**
 * How a collection's items are keyed for paged listings (`queryPageOf`): the partition is fixed, a cursor carries
 * the sort key, and only a sort key inside the collection is accepted.
 */
export function pageKeyOf(collection: Collection) {
  return {
    attributes: ['pk', 'sk'],
    fixed: { pk: collection.pk },
    accepts: (key: Readonly<Record<string, string>>) => key.sk!.startsWith(collection.skPrefix),
  };
}

/** What each listing queries. */
export const collections = {
  channels: (projectId: string): Collection => ({ pk: projectPartition(projectId), skPrefix: 'CH#' }),
  integrations: (projectId: string): Collection => ({ pk: projectPartition(projectId), skPrefix: 'INT#' }),
  botEntries: (projectId: string): Collection => ({ pk: projectPartition(projectId), skPrefix: 'BOT#' }),
  managementKeys: (projectId: string): Collection => ({ pk: projectPartition(projectId), skPrefix: 'MKEY#' }),
  /** A project's audit entries; the sort key is the entry's time, then its id. */
  auditEntries: (projectId: string): Collection => ({ pk: `AUDIT#${projectId}`, skPrefix: '' }),
  /** A bot's knowledge files, by name (byte order of the UTF-8 name). */
  knowledgeFiles: (botId: string): Collection => ({ pk: botPartition(botId), skPrefix: 'FILE#' }),
  /** A bot's file-key → name entries. */
  knowledgeFileNames: (botId: string): Collection => ({ pk: botPartition(botId), skPrefix: 'FKEY#' }),
  /** A channel's messages; the sort key after the prefix is time, then message id. */
  messages: (projectId: string, channelId: string): Collection => ({
    pk: projectPartition(projectId),
    skPrefix: `MSG#${channelId}#`,
  }),
  /** A channel's suppressions, in contact order. */
  suppressions: (projectId: string, channelId: string): Collection => ({
    pk: suppressionPartition(projectId, channelId),
    skPrefix: SUPPRESSION_PREFIX,
  }),
  /** A channel's scheduled messages by time (entries of moved, sent or canceled ones are filtered when read). */
  channelScheduled: (channelId: string): Collection => ({ pk: `CHSCHED#${channelId}`, skPrefix: 'S#' }),
  /** A channel's batches by time. */
  channelBatches: (channelId: string): Collection => ({ pk: `CHBATCH#${channelId}`, skPrefix: 'B#' }),
  /** The email channels (of any project) whose address this is. */
  channelsAtAddress: (address: string): Collection => ({ pk: inboundAddressPartition(address), skPrefix: 'CH#' }),
};

/** Every partition of a webhook's delivery records, each sorted by delivery id (a listing merges them). */
export const deliveryPartitions = (projectId: string, integrationId: string) =>
  webhookPartitions((shard) => deliveryPartition(projectId, integrationId, shard));

/** Project and month of a credits item, read back from its key (the sweeper finds items through the index). */
export function creditsKeyParts(item: Record<string, unknown>): { projectId: string; month: string } {
  return {
    projectId: String(item.pk).slice(projectPartition('').length),
    month: String(item.sk).slice(CREDITS_PREFIX.length),
  };
}

/** Epoch ms as a sort key that sorts as text. */
const sortableMs = (ms: number) => String(Math.max(0, Math.floor(ms))).padStart(15, '0');

/** The background index: its attribute names and the partitions items join it under. */
const CREDIT_SWEEP_PARTITION = 'CREDIT_SWEEP';
const PROJECTS_PARTITION = 'PROJECTS';

export const backgroundIndex = {
  ...indexes.background,
  /**
   * Where the previous layout listed month items with open charges (every project's, on one key, the whole item
   * projected): only read, by the credit sweep, until the last of them is moved (`workIndex.creditSweepPartitions`).
   */
  legacyCreditSweepPartition: CREDIT_SWEEP_PARTITION,
  /** Every project, sorted by creation time. */
  projectsPartition: PROJECTS_PARTITION,
  /**
   * Where the previous layout listed items with events not yet published (every project's, on one key): only read,
   * by the event sweep, until the last of them is published (`workIndex.outboxPartition` replaced it).
   */
  legacyOutboxPartition: 'OUTBOX',
  sortableMs,
  /** A project's entry in the project listing. */
  projectEntry: (createdAt: string, projectId: string) => ({
    [indexes.background.partitionKey]: PROJECTS_PARTITION,
    [indexes.background.sortKey]: `${createdAt}#${projectId}`,
  }),
};

/**
 * The conversation index: a message's status item joins its conversation (channel and contact) under its time, so one
 * Query lists a conversation's messages newest first.
 */
export const conversationIndex = {
  ...indexes.conversations,
  partition: (projectId: string, channelId: string, contact: string) => `CONVMSG#${projectId}#${channelId}#${contact}`,
  entry: (projectId: string, channelId: string, contact: string, createdAt: string, messageId: string) => ({
    [indexes.conversations.partitionKey]: `CONVMSG#${projectId}#${channelId}#${contact}`,
    [indexes.conversations.sortKey]: `${createdAt}#${messageId}`,
  }),
};

/** The outbox's shards: two keys-only index writes per event, so 64 shards take 32,000 events a second. */
const OUTBOX_SHARDS = 64;
/**
 * The credit sweep's shards. A month item joins its shard on its first open charge and is moved or removed by the
 * sweep; charges in between write nothing here (keys only, keys unchanged): a few index writes per project and sweep
 * run, so 16 shards take the sweep marks of 100,000 busy projects a minute at a sixth of a partition each.
 */
const CREDIT_SWEEP_SHARDS = 16;

/**
 * The work index (keys only, sparse): what background jobs find, each kind spread over shards so that no partition
 * takes the writes of every tenant, or of one busy webhook.
 */
export const workIndex = {
  ...indexes.work,
  /** Every outbox shard: items with events not yet published, sorted by when their first mark was written. */
  outboxPartitions: Array.from({ length: OUTBOX_SHARDS }, (_, shard) => `OUTBOX#${shardSuffix(shard)}`),
  /**
   * The outbox shard of an event's marks, chosen by its queue order key (`EventMessage`'s message group): the
   * events of one conversation share a shard, so the sweep, reading each shard oldest first, publishes them in order.
   */
  outboxPartitionOf: (orderGroup: string) => `OUTBOX#${shardSuffix(shardOf(orderGroup, OUTBOX_SHARDS))}`,
  /** The entry's sort key: when the item's first pending mark was written, then the item (unique). */
  outboxSortKey: (atMs: number, pk: string) => `${sortableMs(atMs)}#${pk}`,
  /** The bound a sweep reads up to (exclusive): entries written before `atMs`. */
  outboxSortKeyBefore: (atMs: number) => sortableMs(atMs),
  /**
   * A webhook's failed deliveries (a delivery has an entry while it is `failed`), in the partition of its delivery
   * record's shard, sorted by delivery id (which starts with the event time): `recover` reads a window of event time
   * as one key range per partition and merges them oldest first (shared/webhooks/recover.ts).
   */
  failedDeliveriesEntry: (projectId: string, integrationId: string, deliveryId: string) => ({
    [indexes.work.partitionKey]: `DLVFAILED#${projectId}#${integrationId}#${webhookShardOf(deliveryId)}`,
    [indexes.work.sortKey]: deliveryId,
  }),
  failedDeliveriesPartitions: (projectId: string, integrationId: string) =>
    webhookPartitions((shard) => `DLVFAILED#${projectId}#${integrationId}#${shard}`),
  /** Every shard of the credit sweep: month items with charges that may still be open, oldest charge first. */
  creditSweepPartitions: Array.from(
    { length: CREDIT_SWEEP_SHARDS },
    (_, shard) => `${CREDIT_SWEEP_PARTITION}#${shardSuffix(shard)}`,
  ),
  /** The credit sweep's shard of a project's month items. */
  creditSweepPartitionOf: (projectId: string) =>
    `${CREDIT_SWEEP_PARTITION}#${shardSuffix(shardOf(projectId, CREDIT_SWEEP_SHARDS))}`,
  /** The entry's sort key: the time of the item's oldest charge that may still be open. */
  creditSweepSortKey: sortableMs,
};

/**
 * A project's events kept for polling (`GET /api/integration/events`), spread over this many partitions: one project
 * may report 2,000 events a second, and a partition takes 1,000 write units.
 */
export const POLL_PARTITIONS = 8;
const pollPartition = (projectId: string, shard: number) => `POLL#${projectId}#${shardSuffix(shard)}`;

/**
 * The event log pollers walk: `POLL#<project>#<shard>` (the shard a hash of the event id) / `<stored at, ms>.<nnn>#<eventId>`:
 * every partition sorts by the time the event was stored (then its place in the fan-out's batch), so the merged
 * partitions read as one list in that order.
 */
export const pollLog = {
  partitions: (projectId: string) => Array.from({ length: POLL_PARTITIONS }, (_, s) => pollPartition(projectId, s)),
  entry: (projectId: string, eventId: string, storedAtMs: number, place: number) => ({
    pk: pollPartition(projectId, shardOf(eventId, POLL_PARTITIONS)),
    sk: `${String(Math.floor(storedAtMs)).padStart(15, '0')}.${String(place).padStart(4, '0')}#${eventId}`,
  }),
  /** The position just before anything stored at `atMs` or later. */
  positionAt: (atMs: number) => String(Math.max(0, Math.floor(atMs))).padStart(15, '0'),
};
