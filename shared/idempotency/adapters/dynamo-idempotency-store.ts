import { gunzipSync, gzipSync } from 'node:zlib';
import { hashToken } from '../../kernel/tokens.ts';
import type { ClaimResult, IdempotencyClaim, IdempotencyStore, StoredResponse } from '../idempotency-store.ts';
import { applied, deleteItem, type DynamoTable, putItem, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys } from '../../contract/keys.ts';

/** Responses larger than this (gzip-compressed) are not kept: DynamoDB items stop at 400 KB. */
const MAX_STORED_BYTES = 350 * 1024;

/**
 * One item per (scope, key): `IDEM#<sha256(scope + key)>`. Claiming is one conditional put: it succeeds when the key
 * is new or expired. Only a lost claim pays a read, to tell replay, mismatch and in-progress apart, and to take over
 * a key whose request died holding it (same fingerprint, lock expired: one more conditional write). Responses are stored gzip-compressed.
 */
export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(private readonly table: DynamoTable) {}

  private key(claim: IdempotencyClaim) {
    return keys.idempotency(hashToken(`${claim.scope}\n${claim.key}`));
  }

  async claim(claim: IdempotencyClaim): Promise<ClaimResult> {
    const nowSec = Math.floor(claim.now / 1000);
    const claimed = await applied(
      putItem(this.table, {
        Item: {
          ...this.key(claim),
          phase: 'in_progress',
          fingerprint: claim.fingerprint,
          owner: claim.owner,
          lockedUntil: claim.now + claim.lockMs,
          firstClaimedAt: claim.now,
          expiresAt: Math.ceil((claim.now + claim.retentionMs) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :nowSec',
        ExpressionAttributeValues: { ':nowSec': nowSec },
      }),
    );
    if (claimed) return { kind: 'claimed', firstClaimedAt: claim.now };
    const item = await readItem(this.table, this.key(claim));
    if (!item) return this.claim(claim); // released between our write and read: try once more
    if (item.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
    if (item.phase === 'completed' && item.response) {
      return {
        kind: 'replay',
        response: JSON.parse(gunzipSync(Buffer.from(item.response as Uint8Array)).toString('utf8')) as StoredResponse,
      };
    }
    if (item.phase === 'in_progress' && Number(item.lockedUntil) < claim.now) {
      // The first request died holding the key: this one takes over, keeping when the key was first claimed (what
      // fixes the id of an event it produces, so the retry publishes the same one).
      const takenOver = await applied(
        updateItem(this.table, {
          Key: this.key(claim),
          UpdateExpression: 'SET #owner = :owner, lockedUntil = :until',
          ConditionExpression: '#owner = :previous AND phase = :inProgress',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':owner': claim.owner,
            ':until': claim.now + claim.lockMs,
            ':previous': item.owner,
            ':inProgress': 'in_progress',
          },
        }),
      );
      if (takenOver) return { kind: 'claimed', firstClaimedAt: Number(item.firstClaimedAt ?? claim.now) };
    }
    return { kind: 'in-progress' };
  }

  async complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    const packed = gzipSync(JSON.stringify(response));
    if (packed.length > MAX_STORED_BYTES) return this.release(claim);
    await applied(
      updateItem(this.table, {
        Key: this.key(claim),
        UpdateExpression: 'SET phase = :completed, #response = :response REMOVE lockedUntil',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#response': 'response', '#owner': 'owner' },
        ExpressionAttributeValues: { ':completed': 'completed', ':response': packed, ':owner': claim.owner },
      }),
    );
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await applied(
      deleteItem(this.table, {
        Key: this.key(claim),
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': claim.owner },
      }),
    );
  }
}
