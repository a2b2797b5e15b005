import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { findChannelsByAddress } from '#shared/messaging/index.ts';
import { S3RawReportStore } from '#shared/kernel/aws/s3-raw-report-store.ts';
import { SqsJsonQueue } from '#shared/kernel/aws/sqs-json-queue.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { startSmtpInbound, type RunningSmtpInbound, type SesReceiptNotification } from './smtp-inbound.ts';

/**
 * The local inbound mailbox: the SMTP listener (./smtp-inbound.ts) wired to the stand-ins the way SES is wired on
 * AWS (the deployment's settings, already in process.env: table, transfer bucket, `inbound` queue): the raw mail in
 * the bucket and an SES receipt notification on the queue.
 */
export async function startLocalMailbox(port: number, logErrors: boolean): Promise<RunningSmtpInbound> {
  const cfg = parseConfig(process.env);
  if (!cfg.BUCKET_TRANSFER || !cfg.QUEUE_URL_INBOUND) throw new Error('The local mailbox needs the bucket and queue');
  // Clients of its own (the adapters' module-scope ones belong to the functions, and outlive a restart).
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const region = cfg.AWS_REGION;
  const dynamo = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region, endpoint: cfg.DYNAMODB_ENDPOINT, credentials }),
  );
  const s3 = new S3Client({
    region,
    endpoint: cfg.S3_ENDPOINT,
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const sqs = new SQSClient({ region, endpoint: cfg.SQS_ENDPOINT, credentials });
  const table = { client: dynamo, tableName: cfg.TABLE_NAME };
  const raw = new S3RawReportStore(s3, cfg.BUCKET_TRANSFER);
  const queue = new SqsJsonQueue<SesReceiptNotification>(sqs, cfg.QUEUE_URL_INBOUND);
  const smtp = await startSmtpInbound({
    port,
    host: '127.0.0.1',
    findChannels: (address) => findChannelsByAddress(table, address),
    park: (key, body) => raw.put(key, body),
    enqueue: (notification) => queue.send(notification),
    onError: (error) => {
      if (logErrors) console.error('[smtp-inbound]', error);
    },
  });
  return {
    port: smtp.port,
    async stop() {
      await smtp.stop();
      for (const client of [dynamo, s3, sqs]) client.destroy();
    },
  };
}
