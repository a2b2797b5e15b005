import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { HttpEvent } from '#shared/http/types.ts';

/** A minimal API Gateway REST proxy event, for calling a handler in-process. */
export function apiEvent(input: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | null;
  base64?: boolean;
}): HttpEvent {
  const headers = input.headers ?? {};
  return {
    resource: input.path ?? '/',
    path: input.path ?? '/',
    httpMethod: input.method ?? 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: input.body ?? null,
    isBase64Encoded: input.base64 ?? false,
    requestContext: { requestId: randomUUID() } as APIGatewayProxyEvent['requestContext'],
  } as APIGatewayProxyEvent as HttpEvent;
}

export const lambdaContext = { awsRequestId: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
