import type { QueueKey } from './queues.ts';

/** Objects under `prefix` are deleted `days` after they were written (an S3 lifecycle rule on AWS). */
export interface ExpiringPrefix {
  prefix: string;
  days: number;
}

/**
 * Objects whose creation the bucket reports to a queue as an S3 event record: an S3 event notification on AWS, and
 * the same record sent by the local runner's stand-in (local/emulators.ts) when such an object lands.
 */
export interface ObjectCreatedNotification {
  suffix: string;
  queue: QueueKey;
}

/** The suffix of a browser upload's key in the knowledge bucket (shared/knowledge/knowledge-files.ts lays keys out). */
/**
 * Where received mail is stored (SES's receipt rule on AWS, the local SMTP listener locally): under the transfer
 * bucket's expiring payloads, where the inbound worker reads it.
 */
export const SES_OBJECT_PREFIX = 'payloads/inbound/email/ses/';

export const INCOMING_UPLOAD_SUFFIX = '.upload';

/** S3 buckets. infra/ and local/ both build from this list. */
export const buckets = {
  /** Knowledge files as uploaded, and each bot's search index. Nothing expires. */
  knowledge: {
    key: 'knowledge',
    localName: 'switchboard-knowledge',
    envVar: 'BUCKET_KNOWLEDGE',
    expiringPrefixes: [] as ExpiringPrefix[],
    /** A browser upload that lands starts its ingestion. */
    objectCreatedNotifications: [{ suffix: INCOMING_UPLOAD_SUFFIX, queue: 'ingest' }] as ObjectCreatedNotification[],
  },
  /**
   * Presigned extract uploads (read once, within minutes: a day is plenty), large webhook payloads, which must
   * outlive the 30 days a delivery stays listed and retryable by hand, and inbound media (90 days, as the messages).
   */
  transfer: {
    key: 'transfer',
    localName: 'switchboard-transfer',
    envVar: 'BUCKET_TRANSFER',
    expiringPrefixes: [
      { prefix: 'uploads/', days: 1 },
      { prefix: 'payloads/', days: 31 },
      // Media contacts sent: as long as the message records that sign their URLs.
      { prefix: 'media/', days: 90 },
    ] as ExpiringPrefix[],
    objectCreatedNotifications: [] as ObjectCreatedNotification[],
  },
} as const;

export type BucketKey = keyof typeof buckets;
