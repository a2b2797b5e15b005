/**
 * The one DynamoDB table. infra/ creates it from this definition and local/ creates the same table in dynalite,
 * so names, keys and indexes cannot drift apart.
 *
 * Every item lives under a partition key derived from the request (a token hash, a project id), so reads that must
 * be current are strongly consistent GetItem/UpdateItem calls; the indexes serve listings and background work.
 */
/** Sparse index for background work (credit charges the sweeper must look at, the management listing of projects). */
const backgroundIndex = { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' } as const;

/**
 * A channel's messages per contact, newest first (`GET /api/integration/conversations/{contact}/messages`): each
 * message's status item carries its entry, so the listing costs no write of its own. Keys only: an entry is one
 * write unit when a message joins, and a status change (which rewrites the item) writes nothing here, where the
 * whole item projected cost its size on every write (4 write units per event, on the conversation's one partition).
 * The listing reads the page's items themselves (one BatchGetItem). It keeps the key attributes of the index it
 * replaces (`gsi2`, which projected everything), so no item is rewritten.
 */
const conversationIndex = {
  indexName: 'gsi4',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  projection: 'KEYS_ONLY',
} as const;

/**
 * The conversation index as it was (the whole item projected): a deployment from before keeps it until its
 * replacement has been filled (`keepPreviousConversationIndex`, docs/operations.md), since DynamoDB cannot change an
 * index's projection in place and adds or deletes one index per update. The listing reads it only while the new one
 * is still being filled.
 */
export const previousConversationIndex = {
  indexName: 'gsi2',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  projection: 'ALL',
} as const;

/**
 * Work a background job must find on hot paths (events not yet published, failed deliveries): sparse, keys only (an
 * entry costs one write unit whatever the item's size, and an update that keeps the entry's keys writes nothing
 * here), and every partition is one shard of one kind of work, so no key takes the writes of every tenant. Readers
 * read the items themselves (consistently) for anything beyond their keys.
 */
const workIndex = { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'KEYS_ONLY' } as const;

/** The table's global secondary indexes, by what they serve: adapters name the index they query. */
export const indexes = { background: backgroundIndex, conversations: conversationIndex, work: workIndex } as const;

export const mainTable = {
  /** CDK construct id; the physical name comes from the TABLE_NAME environment variable. */
  constructId: 'MainTable',
  localName: 'switchboard-main',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [backgroundIndex, conversationIndex, workIndex],
} as const;

export type GsiName = (typeof mainTable.globalSecondaryIndexes)[number]['indexName'];
