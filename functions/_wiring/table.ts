import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import type { Config } from '#shared/config/config.ts';

/** The deployment's one table, with the process's one DynamoDB client: what every DynamoDB adapter is built on. */
export function dynamoTable(cfg: Config): DynamoTable {
  return { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
}
