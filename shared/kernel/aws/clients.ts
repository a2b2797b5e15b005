import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.ts';

/**
 * AWS clients, built once per cold start. Locally the endpoints point at the in-process stand-ins (dynalite,
 * fauxqs) and fixed dummy credentials are used; on AWS the defaults apply (the function's role).
 */
export function localCredentials(endpoint: string | undefined) {
  return endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
}

/**
 * Takes the SDK's logger middleware off a client. Decision (measured: bench/history/2026-11-webhooks-for-chat-back-ends.md): we never give the SDK a logger,
 * yet that middleware still walks every call's input and output through the schema's sensitive-data filter (a deep
 * copy) to hand them to its no-op logger: ~2 % of a deliver worker's CPU at saturation, for nothing. Nothing else
 * reads those copies; errors still reach the caller as before.
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

let documentClient: DynamoDBDocumentClient | undefined;

export function dynamoDocumentClient(cfg: Config): DynamoDBDocumentClient {
  // The document client shares the client's middleware stack: one removal serves both.
  documentClient ??= DynamoDBDocumentClient.from(
    withoutSdkLogging(
      new DynamoDBClient({
        region: cfg.AWS_REGION,
        ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT } : {}),
        ...localCredentials(cfg.DYNAMODB_ENDPOINT),
        maxAttempts: 3,
      }),
    ),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return documentClient;
}
