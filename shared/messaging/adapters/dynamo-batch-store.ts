import { keys } from '../../contract/keys.ts';
import { type DynamoTable, putItem, readItem } from '../../kernel/aws/dynamo-table.ts';
import type { BatchRecord, BatchStore } from '../volume/batch.ts';

/** Kept as long as its messages (90 days). */
const RETENTION_SECONDS = 90 * 86400;

/** A batch is one item of its own (`BATCH#<batchId>`): its message ids (about 24 KB for 1,000) and counts. */
export class DynamoBatchStore implements BatchStore {
  constructor(private readonly table: DynamoTable) {}

  async create(batch: BatchRecord): Promise<void> {
    await putItem(this.table, {
      Item: {
        ...keys.batch(batch.batchId),
        ...batch,
        expiresAt: Math.floor(Date.parse(batch.createdAt) / 1000) + RETENTION_SECONDS,
      },
    });
  }

  async get(batchId: string): Promise<BatchRecord | undefined> {
    const item = await readItem(this.table, keys.batch(batchId));
    if (!item) return undefined;
    const { pk: _pk, sk: _sk, expiresAt: _e, ...batch } = item;
    return batch as unknown as BatchRecord;
  }
}
