import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { startDynamoWithTable } from '#local/emulators.ts';

/** A document client on a local dynalite (dummy credentials), marshalling as the service's own client does. */
export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

/** An in-memory dynalite with the main table, and a document client on it: for adapter tests over the real protocol. */
export async function startTestTable(): Promise<{ table: DynamoTable; close(): Promise<void> }> {
  const dynamo = await startDynamoWithTable();
  const client = localDocumentClient(dynamo.endpoint);
  return {
    table: { client, tableName: dynamo.tableName },
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
}
