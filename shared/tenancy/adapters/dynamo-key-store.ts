import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import {
  applied,
  deleteItem,
  type DynamoTable,
  putItem,
  fromStored,
  queryPageOf,
  readItem,
  readStoredBatch,
  readStrings,
  type StoredItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import type { ItemAlong, KeyStore, ManagementKey } from '../keys.ts';

const FIELDS = ['keyId', 'projectId', 'name', 'role', 'createdAt', 'lastUsedAt'] as const;

const keyOf = (item: Record<string, unknown>): ManagementKey =>
  Object.fromEntries(FIELDS.flatMap((f) => (item[f] === undefined ? [] : [[f, item[f]]]))) as unknown as ManagementKey;

/** The key's item in DynamoDB's form: its fields are strings (anything else is left out, as `readStrings` does). */
const storedKeyOf = (item: StoredItem): ManagementKey =>
  Object.fromEntries(
    FIELDS.flatMap((f) => (item[f]?.S === undefined ? [] : [[f, item[f].S]])),
  ) as unknown as ManagementKey;

/**
 * Management keys: one item by the key's hash (`MKEY#<sha256>`, what a request reads) and one entry under the project
 * (`PRJ#<id>` / `MKEY#<keyId>`, what the listing reads, with the hash so a revoke finds the other item). No
 * transaction: the entry is written first, so a crash between the two leaves a listed key that opens nothing
 * (revoking it tidies up); a revoke deletes the hash item first, so the key is refused from that moment.
 */
export class DynamoKeyStore implements KeyStore {
  constructor(private readonly table: DynamoTable) {}

  async create(key: ManagementKey, keyHash: string): Promise<void> {
    await putItem(this.table, {
      Item: { ...keys.managementKeyEntry(key.projectId, key.keyId), ...key, keyHash },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    await putItem(this.table, {
      Item: { ...keys.managementKey(keyHash), ...key },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async list(projectId: string, page: PageRequest): Promise<Page<ManagementKey>> {
    const collection = collections.managementKeys(projectId);
    const found = await queryPageOf(this.table, inCollection(collection), page, pageKeyOf(collection));
    return { ...found, items: found.items.map(keyOf) };
  }

  /**
   * Read on every request a key makes, never cached: a revoked key is refused from its next request. With `along`,
   * one strongly consistent BatchGetItem reads both items: the request's own read of the other item is then served
   * from it, and the key's check costs one round trip less than a read of its own.
   */
  async findByHash(keyHash: string, along?: ItemAlong): Promise<ManagementKey | undefined> {
    const key = keys.managementKey(keyHash);
    if (!along) {
      const item = await readStrings(this.table, key, FIELDS);
      return item ? (item as ManagementKey) : undefined;
    }
    // In DynamoDB's own form: only the item handed along is converted (the key's fields are read as the strings
    // they are), which saves the document client's conversion of the request and the answer on every request.
    const items = await readStoredBatch(this.table, [key, along.key], [...FIELDS, ...along.attributes]);
    const under = (k: { pk: string; sk: string }) => items.find((i) => i.pk?.S === k.pk && i.sk?.S === k.sk);
    const other = under(along.key);
    along.found(other && fromStored(other));
    const item = under(key);
    return item ? storedKeyOf(item) : undefined;
  }

  async revoke(projectId: string, keyId: string): Promise<boolean> {
    const entry = await readItem(this.table, keys.managementKeyEntry(projectId, keyId));
    if (!entry) return false;
    await deleteItem(this.table, { Key: keys.managementKey(entry.keyHash as string) });
    await deleteItem(this.table, { Key: keys.managementKeyEntry(projectId, keyId) });
    return true;
  }

  async touch(keyHash: string, key: ManagementKey, at: string): Promise<void> {
    const update = {
      UpdateExpression: 'SET lastUsedAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at },
    };
    await applied(updateItem(this.table, { Key: keys.managementKey(keyHash), ...update }));
    await applied(updateItem(this.table, { Key: keys.managementKeyEntry(key.projectId, key.keyId), ...update }));
  }
}
