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

let documentClient: DynamoDBDocumentClient | undefined;

export function dynamoDocumentClient(cfg: Config): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: cfg.AWS_REGION,
      ...(cfg.DYNAMODB_ENDPOINT ? { endpoint: cfg.DYNAMODB_ENDPOINT } : {}),
      ...localCredentials(cfg.DYNAMODB_ENDPOINT),
      maxAttempts: 3,
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return documentClient;
}
