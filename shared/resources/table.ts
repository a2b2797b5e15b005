/**
 * The one DynamoDB table. infra/ creates it from this definition and local/ creates the same table in dynalite,
 * so names, keys and indexes cannot drift apart.
 *
 * Every item lives under a partition key derived from the request (a token hash, a project id), so reads that must
 * be current are strongly consistent GetItem/UpdateItem calls; the one GSI serves background listings only.
 */
export const mainTable = {
  /** CDK construct id; the physical name comes from the TABLE_NAME environment variable. */
  constructId: 'MainTable',
  localName: 'switchboard-main',
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [
    /** Sparse index for background work (for example credit charges the sweeper must look at). */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ],
} as const;

export type GsiName = (typeof mainTable.globalSecondaryIndexes)[number]['indexName'];
