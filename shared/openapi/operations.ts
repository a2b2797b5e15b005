import type { RouteDefinition } from '../contract/routes.ts';
import { ERROR_CODES, mergeErrors, type ErrorsByStatus } from '../contract/error-codes.ts';
import type {
  DocumentedRoute,
  PublicOperationDoc,
  PublicSecurity,
  RouteDoc,
  SuccessAnswer,
} from '../contract/api-docs.ts';
import { openAiCodeFor } from '../completion/index.ts';
import { PATH_PARAMETERS, REQUEST_EXAMPLES } from './examples.ts';
import { codeSamples } from './code-samples.ts';
import * as z from '../kernel/validation/zod.ts';
import { pageQuery } from '../http/pagination.ts';
import { INTERNAL_TAGS } from '../contract/api-docs.ts';
import { type Convert, type Json, SCHEMA_REF } from './json-schema.ts';

/** One operation of the document from its route and its documentation: parameters, body, answers and samples. */

/** How a list pages: every operation whose query has `limit` and `cursor` carries it. */
const PAGINATION = { limitParam: 'limit', cursorParam: 'cursor', cursorField: 'nextCursor', itemsField: 'items' };

export const HEADERS = {
  'x-request-id': {
    description: "The caller's `x-request-id` when it matches `^[A-Za-z0-9._:-]{1,128}$`, else a new id.",
    schema: { type: 'string' },
    example: 'req_5b8c2d1e9f7a',
  },
  'RateLimit-Limit': {
    description: 'Requests per minute allowed for the token.',
    schema: { type: 'integer' },
    example: 60,
  },
  'RateLimit-Remaining': { description: 'Requests left right now.', schema: { type: 'integer' }, example: 59 },
  'RateLimit-Reset': {
    description: 'Seconds until the bucket is full again.',
    schema: { type: 'integer' },
    example: 1,
  },
  'Retry-After': {
    description:
      'Seconds to wait before retrying: until the next request would pass (429), or the service is busy (503).',
    schema: { type: 'integer' },
    example: 1,
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string' },
    example: 'true',
  },
};

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Same key and same body within 24 h: the stored answer is returned (`Idempotent-Replayed: true`) and nothing runs or is charged again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: 'order-1042-shipped',
};

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{([^}+]+)\}/g)].map((m) => {
    const name = m[1]!;
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`No description for the path parameter ${name} (shared/openapi/examples.ts)`);
    return {
      name,
      in: 'path',
      required: true,
      description: known.description,
      schema: { type: 'string' },
      example: known.example,
    };
  });
}

/** Query parameters from a JSON Schema object: each property one parameter, its first example as the example. */
function queryParameters(query: Json): Json[] {
  const required = new Set((query.required ?? []) as string[]);
  return Object.entries((query.properties ?? {}) as Record<string, Json>).map(([name, schema]) => {
    const { description, examples, example, ...rest } = schema;
    const value = example ?? examples?.[0] ?? rest.default;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
      ...(value === undefined ? {} : { example: value }),
    };
  });
}

export function publicOperation(
  route: RouteDefinition,
  method: string,
  doc: PublicOperationDoc,
  convert: Convert,
): Json {
  // Any route may meet a throttled store or queue: 503 with Retry-After, nothing done.
  const errors = mergeErrors(doc.errors, { 500: ['INTERNAL_ERROR'], 503: ['SERVICE_UNAVAILABLE'] });
  const headers = responseHeaders(doc.rateLimited ?? false, doc.idempotent ?? false);
  const internal = INTERNAL_TAGS.includes(doc.tags[0]);
  const operation: Json = {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: doc.tags,
    security: securityOf(doc.security),
    ...(doc.deprecated ? { deprecated: true } : {}),
    ...(internal ? { 'x-internal': true } : {}),
  };
  const parameters = [
    ...pathParameters(route.path),
    ...(doc.query ? queryParameters(doc.query) : []),
    // A paged operation with its own bounds documents them in `query`; the others take the one page query.
    ...(doc.paged && !doc.query ? queryParameters(convert(pageQuery, 'input')) : []),
    ...(doc.idempotent ? [idempotencyKeyParameter] : []),
  ];
  if (parameters.length) operation.parameters = parameters;
  if (doc.paged) operation['x-pagination'] = PAGINATION;
  if (doc.requestBodies?.length) {
    const content: Json = {};
    for (const body of doc.requestBodies) {
      const schema = body.schema instanceof z.ZodMiniType ? convert(body.schema, 'input') : body.schema;
      content[body.contentType] = {
        schema: body.source === 'copy' ? { ...schema, 'x-schema-source': 'documentation copy' } : schema,
        ...(body.contentType === 'multipart/form-data'
          ? { encoding: { file: { contentType: 'application/pdf' } } }
          : {}),
        ...(body.sdk === false ? { 'x-sdk': false } : {}),
      };
    }
    operation.requestBody = {
      required: !doc.requestBodyOptional,
      content,
      ...(doc.requestBodies.length === 1 && doc.requestBodies[0]!.description
        ? { description: doc.requestBodies[0]!.description }
        : {}),
    };
  }
  operation.responses = responses(doc.responses, errors, convert, headers, doc.errorFormat);
  if (route.method === 'ANY') operation['x-any-method'] = true;
  operation['x-codeSamples'] = codeSamples({
    method,
    path: route.path,
    operation,
    security: doc.security,
    example: REQUEST_EXAMPLES[doc.operationId],
  });
  return operation;
}

export function adminOperation(route: DocumentedRoute, path: string, doc: RouteDoc, convert: Convert): Json {
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const common: ErrorsByStatus = {
    401: ['UNAUTHORIZED'],
    403: ['FORBIDDEN'],
    500: ['INTERNAL_ERROR'],
    503: ['SERVICE_UNAVAILABLE'],
  };
  if (pathParams.length) common[404] = ['NOT_FOUND'];
  if (route.body && route.body !== 'raw') common[400] = ['INVALID_JSON', 'VALIDATION_ERROR'];
  if (route.body && route.body !== 'raw') common[413] = ['PAYLOAD_TOO_LARGE'];
  if (route.query) common[400] = [...(common[400] ?? []), 'VALIDATION_ERROR'];
  if (route.idempotent) common[409] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'];
  const errors = mergeErrors(common, (doc.errors ?? {}) as ErrorsByStatus);

  const query = route.query ? convert(route.query, 'input') : undefined;
  const parameters: Json[] = [
    ...pathParameters(route.path),
    ...(route.idempotent ? [idempotencyKeyParameter] : []),
    ...(query ? queryParameters(query) : []),
  ];
  const paginated = parameters.some((p) => p.name === 'limit') && parameters.some((p) => p.name === 'cursor');
  const operation: Json = {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: doc.tags,
    security: [{ adminKey: [] }],
    // What only the console calls (opening a portal link, who the caller is) stays out of the SDK, as on the public side.
    ...(INTERNAL_TAGS.includes(doc.tags[0]) ? { 'x-internal': true } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(paginated ? { 'x-pagination': PAGINATION } : {}),
  };
  if (route.body === 'raw') {
    // A media type and no JSON type: generators take the bytes as they are (a Blob), never as JSON text.
    operation.requestBody = {
      required: true,
      description: "The file's bytes, with its media type as `Content-Type`.",
      content: Object.fromEntries(
        (doc.rawContentTypes ?? ['application/octet-stream']).map((t) => [t, { schema: { contentMediaType: t } }]),
      ),
    };
  } else if (route.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: convert(route.body, 'input') } },
    };
  }
  operation.responses = responses(doc.responses, errors, convert, responseHeaders(false, route.idempotent ?? false));
  operation['x-codeSamples'] = codeSamples({
    method: route.method,
    path,
    operation,
    security: 'adminKey',
    example: REQUEST_EXAMPLES[doc.operationId],
  });
  return operation;
}

function responseHeaders(rateLimited: boolean, idempotent: boolean): Json {
  const headers: Json = { 'x-request-id': { $ref: '#/components/headers/x-request-id' } };
  if (rateLimited)
    for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
      headers[h] = { $ref: `#/components/headers/${h}` };
  if (idempotent) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  return headers;
}

function responses(
  success: Record<number, SuccessAnswer>,
  errors: ErrorsByStatus,
  convert: Convert,
  headers: Json,
  errorFormat?: 'openai',
): Json {
  const out: Json = {};
  for (const [status, answer] of Object.entries(success)) {
    const content: Json = {};
    const example = answer.example === undefined ? {} : { example: answer.example };
    if (answer.body) content['application/json'] = { schema: convert(answer.body, 'output'), ...example };
    if (answer.eventStream) content['text/event-stream'] = { schema: convert(answer.eventStream, 'output') };
    if (answer.text) content[answer.text] = { schema: { type: 'string' }, ...example };
    out[status] = {
      description: answer.description,
      headers,
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  for (const [status, codes] of Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b))) {
    if (!codes?.length) continue;
    const errorHeaders: Json = { 'x-request-id': { $ref: '#/components/headers/x-request-id' } };
    if (status === '429' || status === '503')
      errorHeaders['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === '405') errorHeaders.Allow = { schema: { type: 'string' } };
    out[status] =
      errorFormat === 'openai'
        ? {
            description: codes.map((code) => `\`${openAiCodeFor(code)}\` (${code}): ${ERROR_CODES[code]}`).join('\n\n'),
            headers: errorHeaders,
            content: {
              'application/json': {
                schema: { $ref: `${SCHEMA_REF}OpenAiError` },
                example: {
                  error: {
                    message: ERROR_CODES[codes[0]!],
                    type: 'invalid_request_error',
                    param: null,
                    code: openAiCodeFor(codes[0]!),
                  },
                },
              },
            },
            'x-error-codes': [...codes],
          }
        : {
            description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code]}`).join('\n\n'),
            headers: errorHeaders,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: `${SCHEMA_REF}ErrorResponse` },
                    {
                      type: 'object',
                      properties: { error: { type: 'string', enum: [...codes] } },
                      required: ['error'],
                    },
                  ],
                },
                example: {
                  success: false,
                  error: codes[0],
                  message: ERROR_CODES[codes[0]!],
                  requestId: 'req_5b8c2d1e9f7a',
                },
              },
            },
            'x-error-codes': [...codes],
          };
  }
  return out;
}

function securityOf(security: PublicSecurity): Json[] {
  return security === 'none' ? [] : [{ [security]: [] }];
}
