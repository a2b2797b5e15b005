import { type BatchWriteRequest, type DynamoTable, putItem, writeBatch } from './dynamo-table.ts';

/** BatchWriteItem takes at most this many requests. */
const MAX_BATCH_ITEMS = 25;

interface Waiting {
  item: Record<string, unknown> & { pk: string; sk: string };
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Unconditional puts that share BatchWriteItem calls (group commit): a put waits only while `maxCallsInFlight`
 * calls are already under way, and leaves with every put that queued behind it (up to 25), so one writer alone
 * pays one call per put, and a busy one a call per batch. A put resolves once DynamoDB has its item.
 * Two puts of one key never share a call (DynamoDB rejects the batch) nor run side by side (either could land
 * last): the later one leaves once the earlier one's call has ended, so the later put is the one that stays.
 * A call DynamoDB refuses as a whole (one item too large, say) is tried again one put at a time, so one bad item
 * fails alone and the others are written.
 */
export class GroupedPuts {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  /** The keys of the puts in the calls under way. */
  private readonly keysInFlight = new Set<string>();

  constructor(
    private readonly table: DynamoTable,
    private readonly maxCallsInFlight = 2,
  ) {}

  put(item: Waiting['item']): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxCallsInFlight && this.waiting.length) {
      const batch: Waiting[] = [];
      const keys = new Set<string>();
      const held = new Set<string>();
      for (let i = 0; i < this.waiting.length && batch.length < MAX_BATCH_ITEMS; ) {
        const next = this.waiting[i]!;
        const key = `${next.item.pk}\u0000${next.item.sk}`;
        if (keys.has(key) || held.has(key) || this.keysInFlight.has(key)) {
          held.add(key);
          i++;
          continue;
        }
        keys.add(key);
        this.waiting.splice(i, 1);
        batch.push(next);
      }
      if (!batch.length) return;
      for (const key of keys) this.keysInFlight.add(key);
      this.inFlight++;
      this.write(batch).finally(() => {
        for (const key of keys) this.keysInFlight.delete(key);
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    const requests: BatchWriteRequest[] = batch.map((w) => ({ PutRequest: { Item: w.item } }));
    try {
      await writeBatch(this.table, requests);
      for (const w of batch) w.resolve();
      return;
    } catch (error) {
      if (batch.length === 1 || !isRequestRefused(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
    }
    await Promise.all(batch.map((w) => putItem(this.table, { Item: w.item }).then(() => w.resolve(), w.reject)));
  }
}

/** DynamoDB refused the request itself (400 ValidationException), as opposed to throttling or a network failure. */
function isRequestRefused(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ValidationException';
}
