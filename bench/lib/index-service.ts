/**
 * The local service as the knowledge benchmarks run it: on a data folder of their choice, with no queue workers
 * (nothing ingests behind the benchmark's back), no bot rate limit, and the knowledge index store on its table.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startService } from '#local/service.ts';
import { DynamoKnowledgeIndexStore } from '#shared/knowledge/index.ts';
import { adminApi } from './harness.ts';

export async function startIndexService(dataDir: string) {
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  const svc = await startService({
    port: 0,
    dataDir,
    logWorkerErrors: false,
    queueWorkerFns: [],
    env: { BOT_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: svc.emulators.region, endpoint: svc.emulators.dynamoEndpoint, credentials }),
  );
  return {
    svc,
    admin: adminApi(svc),
    ddb,
    index: new DynamoKnowledgeIndexStore({ client: ddb, tableName: svc.emulators.tableName }),
    async stop() {
      ddb.destroy();
      await svc.stop();
    },
  };
}
