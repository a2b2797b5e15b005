import { collections, keys, pageKeyOf } from '../../contract/keys.ts';
import { type DynamoTable, putItem, queryPageOf } from '../../kernel/aws/dynamo-table.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import { AUDIT_RETENTION_DAYS, type AuditEntry, type AuditLog } from '../audit.ts';

const FIELDS = ['id', 'at', 'actor', 'action', 'target', 'requestId', 'changes'] as const;

/** A project's audit log: one partition per project, sorted by time, read backwards; each entry expires after a year. */
export class DynamoAuditLog implements AuditLog {
  constructor(private readonly table: DynamoTable) {}

  async append(projectId: string, entry: AuditEntry): Promise<void> {
    const expiresAt = Math.ceil(Date.parse(entry.at) / 1000) + AUDIT_RETENTION_DAYS * 86_400;
    await putItem(this.table, { Item: { ...keys.auditEntry(projectId, entry.at, entry.id), ...entry, expiresAt } });
  }

  async list(projectId: string, page: PageRequest): Promise<Page<AuditEntry>> {
    const collection = collections.auditEntries(projectId);
    const found = await queryPageOf(
      this.table,
      {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': collection.pk },
        ScanIndexForward: false,
      },
      page,
      pageKeyOf(collection),
    );
    const items = found.items.map(
      (item) =>
        Object.fromEntries(
          FIELDS.flatMap((f) => (item[f] === undefined ? [] : [[f, item[f]]])),
        ) as unknown as AuditEntry,
    );
    return { ...found, items };
  }
}
