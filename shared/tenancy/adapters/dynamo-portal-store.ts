import { keys } from '../../contract/keys.ts';
import {
  type DynamoTable,
  putItem,
  readBatch,
  readItem,
  updateItem,
  deleteItem,
} from '../../kernel/aws/dynamo-table.ts';
import type { Role } from '../access.ts';
import type { PortalCode, PortalSession, PortalStore } from '../portal.ts';

const epochSeconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * Portal links and sessions. A code is its own item (`PCODE#<hash>`), deleted by the one exchange that uses it
 * (DeleteItem returning what it deleted: two exchanges of one code cannot both get it). Sessions sit beside their
 * project's generation (`PORTAL#<projectId>`), read together in one BatchGetItem. Each item carries the table's
 * expiry, so used-up codes and ended sessions leave by themselves.
 */
export class DynamoPortalStore implements PortalStore {
  constructor(private readonly table: DynamoTable) {}

  async generation(projectId: string): Promise<number> {
    const item = await readItem(this.table, keys.portalGeneration(projectId));
    return (item?.generation as number | undefined) ?? 0;
  }

  async endAll(projectId: string): Promise<void> {
    await updateItem(this.table, {
      Key: keys.portalGeneration(projectId),
      UpdateExpression: 'ADD generation :one',
      ExpressionAttributeValues: { ':one': 1 },
    });
  }

  async putCode(codeHash: string, code: PortalCode): Promise<void> {
    await putItem(this.table, {
      Item: { ...keys.portalCode(codeHash), ...code, expiresAt: epochSeconds(code.usableUntil) },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async takeCode(codeHash: string): Promise<PortalCode | undefined> {
    const out = await deleteItem(this.table, { Key: keys.portalCode(codeHash), ReturnValues: 'ALL_OLD' });
    const item = out.Attributes;
    if (!item) return undefined;
    return {
      projectId: item.projectId as string,
      role: item.role as Role,
      ttlSeconds: item.ttlSeconds as number,
      generation: item.generation as number,
      usableUntil: item.usableUntil as number,
    };
  }

  async putSession(session: PortalSession): Promise<void> {
    await putItem(this.table, {
      Item: {
        ...keys.portalSession(session.projectId, session.sessionId),
        ...session,
        expiresAt: epochSeconds(Date.parse(session.expiresAt)),
        sessionExpiresAt: session.expiresAt,
      },
    });
  }

  async findSession(projectId: string, sessionId: string) {
    const sessionKey = keys.portalSession(projectId, sessionId);
    const items = await readBatch(this.table, [sessionKey, keys.portalGeneration(projectId)]);
    const item = items.find((i) => i.sk === sessionKey.sk);
    const generation = (items.find((i) => i.sk !== sessionKey.sk)?.generation as number | undefined) ?? 0;
    if (!item) return { generation };
    const session: PortalSession = {
      sessionId,
      projectId,
      role: item.role as Role,
      generation: item.generation as number,
      secretHash: item.secretHash as string,
      expiresAt: item.sessionExpiresAt as string,
    };
    return { session, generation };
  }
}
