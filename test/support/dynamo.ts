import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { startDynamoWithTable } from '#local/emulators.ts';

/** An in-memory dynalite with the main table, and a document client on it: for adapter tests over the real protocol. */
export async function startTestTable(): Promise<{ table: DynamoTable; close(): Promise<void> }> {
  const dynamo = await startDynamoWithTable();
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return {
    table: { client, tableName: dynamo.tableName },
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
}
