import { dynamoDocumentClient } from '#shared/kernel/aws/clients.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Config } from '#shared/kernel/config.ts';

/** The deployment's one table, with the process's one DynamoDB client: what every DynamoDB adapter is built on. */
export function dynamoTable(cfg: Config): DynamoTable {
  return { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
}
