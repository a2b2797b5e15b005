import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import { type DynamoTable, queryPageOf, readItem, writeBatch } from '../../kernel/aws/dynamo-table.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import type { BatchRecord, BatchStore } from '../volume/batch.ts';

/** Kept as long as its messages (90 days). */
const RETENTION_SECONDS = 90 * 86400;

/** A batch is one item of its own (`BATCH#<batchId>`): its message ids (about 24 KB for 1,000) and counts. */
export class DynamoBatchStore implements BatchStore {
  constructor(private readonly table: DynamoTable) {}

  async create(batch: BatchRecord): Promise<void> {
    const expiresAt = Math.floor(Date.parse(batch.createdAt) / 1000) + RETENTION_SECONDS;
    const listed = { batchId: batch.batchId, total: batch.total, createdAt: batch.createdAt, expiresAt };
    await writeBatch(this.table, [
      { PutRequest: { Item: { ...keys.batch(batch.batchId), ...batch, expiresAt } } },
      { PutRequest: { Item: { ...keys.channelBatch(batch.channelId, batch.createdAt, batch.batchId), ...listed } } },
    ]);
  }

  /** A channel's batches, newest first: id, size and time (progress: `get` then the batch progress use case). */
  async list(
    channelId: string,
    page: PageRequest,
  ): Promise<Page<{ batchId: string; total: number; createdAt: string }>> {
    const collection = collections.channelBatches(channelId);
    const out = await queryPageOf(
      this.table,
      { ...inCollection(collection), ConsistentRead: true, ScanIndexForward: false },
      page,
      pageKeyOf(collection),
    );
    return {
      ...out,
      items: out.items.map((i) => ({
        batchId: String(i.batchId),
        total: Number(i.total),
        createdAt: String(i.createdAt),
      })),
    };
  }

  async get(batchId: string): Promise<BatchRecord | undefined> {
    const item = await readItem(this.table, keys.batch(batchId));
    if (!item) return undefined;
    const { pk: _pk, sk: _sk, expiresAt: _e, ...batch } = item;
    return batch as unknown as BatchRecord;
  }
}
