/** S3 buckets. infra/ and local/ both build from this list. */
export const buckets = {
  /** Knowledge files as uploaded, and each bot's search index. */
  knowledge: { key: 'knowledge', localName: 'switchboard-knowledge', envVar: 'BUCKET_KNOWLEDGE', temporaryPrefixes: [] as string[] },
  /** Presigned extract uploads and large webhook payloads; objects expire after a day. */
  transfer: { key: 'transfer', localName: 'switchboard-transfer', envVar: 'BUCKET_TRANSFER', temporaryPrefixes: ['uploads/', 'payloads/'] },
} as const;

export type BucketKey = keyof typeof buckets;
