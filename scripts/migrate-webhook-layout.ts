/**
 * Once, after deploying the layout that spreads a webhook's items over partitions (docs/decisions.md, "Events and
 * webhooks spread over partitions"): moves delivery records and hourly counters from the previous one-partition-per-
 * webhook keys to the spread ones. Safe to run while the service runs, and again.
 *
 *   TABLE_NAME=<the stack's table> AWS_REGION=<region> npx tsx scripts/migrate-webhook-layout.ts
 *
 * (`DYNAMODB_ENDPOINT` points it at a local table; the local runner migrates its own data directory by itself.)
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { migrateWebhookLayout } from '#shared/webhooks/index.ts';

const tableName = process.env.TABLE_NAME;
if (!tableName) {
  console.error('TABLE_NAME is required (the table the stack prints as its output)');
  process.exit(2);
}
const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    ...(process.env.AWS_REGION ? { region: process.env.AWS_REGION } : {}),
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);
await migrateWebhookLayout({ client, tableName }, { log: (line) => console.log(line) });
client.destroy();
