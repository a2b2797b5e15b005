/**
 * The AWS SDK's own CPU per call, the stand-ins left out: a DynamoDB document client and an SQS client whose request
 * handler answers at once with a canned response (no socket, no server), each call's whole client stack measured
 * (serialization, endpoint, retry token, signing, deserialization). Each round builds the clients afresh in one of
 * one of these forms and times `--calls` UpdateItem (the drain's most frequent call) and SendMessageBatch calls; the forms
 * alternate round by round in the same process so the machine's load falls on both alike:
 *  - `sdk default`: the clients as the SDK builds them (with our logger removal, as before);
 *  - `signer once`: the signer built once per client alone (`withSignerOnce`);
 *  - `fast config` : the client's config made a fast-properties object alone (`withFastConfig`);
 *  - `lean`: both, as shared/kernel/aws/clients.ts's `leanSdkClient` builds the service's clients.
 * `npx tsx bench/sdk-calls.ts [--calls 20000] [--rounds 6] [--forms lean,sdk default]`. Prints CPU µs per call, median of the rounds, per form.
 */
import { cpuUsage } from 'node:process';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HttpRequest, HttpResponse } from '@smithy/types';
import { leanSdkClient, withFastConfig, withoutSdkLogging, withSignerOnce } from '#shared/kernel/aws/clients.ts';
import { argValue, median, numberArg } from './lib/harness.ts';

const CALLS = numberArg('calls', 20_000);
const ROUNDS = numberArg('rounds', 6);

/** Answers each request with `body` at once, the shape NodeHttpHandler gives (a readable body). */
function cannedHandler(body: (req: HttpRequest) => string) {
  return {
    async handle(request: HttpRequest): Promise<{ response: HttpResponse }> {
      const text = body(request);
      return {
        response: {
          statusCode: 200,
          reason: 'OK',
          headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)) },
          body: Readable.from([Buffer.from(text)]),
        } as unknown as HttpResponse,
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}

const common = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  maxAttempts: 3,
};

const ALL_FORMS = ['sdk default', 'signer once', 'fast config', 'lean'] as const;
type Form = (typeof ALL_FORMS)[number];
// `--forms lean` (comma-separated) runs only those: to profile one form alone.
const FORMS = (argValue('forms')?.split(',') as Form[] | undefined) ?? [...ALL_FORMS];

function build(form: Form) {
  const shape = <T extends DynamoDBClient | SQSClient>(c: T): T => {
    if (form === 'lean') return leanSdkClient(c);
    withoutSdkLogging(c);
    if (form === 'signer once') withSignerOnce(c);
    if (form === 'fast config') withFastConfig(c);
    return c;
  };
  const ddbRaw = shape(
    new DynamoDBClient({
      ...common,
      endpoint: 'http://127.0.0.1:1',
      requestHandler: cannedHandler(() => '{"Attributes":{"n":{"N":"1"},"s":{"S":"queued"}}}'),
    }),
  );
  const ddb = DynamoDBDocumentClient.from(ddbRaw, { marshallOptions: { removeUndefinedValues: true } });
  // As dynamoDocumentClient does: the document client adds to the shared config.
  if (form === 'lean' || form === 'fast config') withFastConfig(ddb);
  const sqs = shape(
    new SQSClient({
      ...common,
      endpoint: 'http://127.0.0.1:1',
      requestHandler: cannedHandler(
        () => '{"Successful":[{"Id":"0","MessageId":"m","MD5OfMessageBody":"9e107d9d372bb6826bd81d3542a419d6"}]}',
      ),
    }),
  );
  return { ddb, sqs };
}

async function cpuPerCall(send: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 500; i++) await send();
  const start = cpuUsage();
  for (let i = 0; i < CALLS; i++) await send();
  const used = cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

const results: Record<string, number[]> = {};
const note = (key: string, v: number) => {
  results[key] ??= [];
  results[key].push(v);
};
for (let round = 0; round < ROUNDS; round++) {
  for (const form of round % 2 === 0 ? FORMS : [...FORMS].reverse()) {
    const { ddb, sqs } = build(form);
    note(
      `${form} UpdateItem`,
      await cpuPerCall(() =>
        ddb.send(
          new UpdateCommand({
            TableName: 't',
            Key: { pk: 'P#1', sk: 'M#1' },
            UpdateExpression: 'SET #s = :s, n = n + :one',
            ConditionExpression: '#s = :q',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':s': 'sending', ':q': 'queued', ':one': 1 },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      ),
    );
    note(
      `${form} SendMessageBatch`,
      await cpuPerCall(() =>
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: 'http://127.0.0.1:1/000000000000/q',
            Entries: [{ Id: '0', MessageBody: 'The quick brown fox jumps over the lazy dog' }],
          }),
        ),
      ),
    );
  }
}
for (const [key, xs] of Object.entries(results).sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `${key.padEnd(30)} ${median(xs).toFixed(1)} µs CPU per call (rounds: ${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
}
