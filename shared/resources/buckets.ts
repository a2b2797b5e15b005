/** Objects under `prefix` are deleted `days` after they were written (an S3 lifecycle rule on AWS). */
export interface ExpiringPrefix {
  prefix: string;
  days: number;
}

/** S3 buckets. infra/ and local/ both build from this list. */
export const buckets = {
  /** Knowledge files as uploaded, and each bot's search index. Nothing expires. */
  knowledge: {
    key: 'knowledge',
    localName: 'switchboard-knowledge',
    envVar: 'BUCKET_KNOWLEDGE',
    expiringPrefixes: [] as ExpiringPrefix[],
  },
  /**
   * Presigned extract uploads (read once, within minutes: a day is plenty) and large webhook payloads, which must
   * outlive the 30 days a delivery stays listed and retryable by hand.
   */
  transfer: {
    key: 'transfer',
    localName: 'switchboard-transfer',
    envVar: 'BUCKET_TRANSFER',
    expiringPrefixes: [
      { prefix: 'uploads/', days: 1 },
      { prefix: 'payloads/', days: 31 },
    ] as ExpiringPrefix[],
  },
} as const;

export type BucketKey = keyof typeof buckets;
