import type { RouteDefinition } from '../contract/routes.ts';
import { ADMIN_ROUTE_DOCS } from './admin-operations.ts';
import { areaAdminDocs, areaPublicDocs } from './area-docs.ts';
import { ERROR_CODES, mergeErrors, type ErrorsByStatus } from '../contract/error-codes.ts';
import { PUBLIC_OPERATION_DOCS, SCHEMA_OVERRIDES } from './public-operations.ts';
import {
  INTERNAL_TAGS,
  TAGS,
  type DocumentedRoute,
  type PublicOperationDoc,
  type PublicSecurity,
  type RouteDoc,
  type SuccessAnswer,
  type Tag,
} from '../contract/api-docs.ts';
import { errorBody, openAiErrorBody } from './schemas.ts';
import { openAiCodeFor } from '../completion/index.ts';
import { webhooksSection } from './webhooks.ts';
import { PATH_PARAMETERS, REQUEST_EXAMPLES, SCHEMA_EXAMPLES } from './examples.ts';
import { exampleOf } from './example-of.ts';
import { codeSamples } from './code-samples.ts';
import * as z from '../kernel/validation/zod.ts';
import { pageQuery } from '../http/pagination.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects, walked by key.
type Json = Record<string, any>;

export interface OpenApiInput {
  /** The management API's route declarations (`functions/admin/routes.ts`), as the admin function's router serves them. */
  adminRoutes: readonly DocumentedRoute[];
  /** The public route table (`shared/contract/routes.ts`). */
  publicRoutes: readonly RouteDefinition[];
  /** Prefix of the management API routes. */
  adminPrefix?: string;
  version?: string;
  /**
   * The base URL of the service serving the document (its `PUBLIC_BASE_URL`; locally, where it listens): listed first
   * in `servers` when given, so a client generated from the document calls that service by default.
   */
  serverUrl?: string;
  /**
   * `full` (default): every route, the provider callbacks and the retired route flagged `x-internal` (what
   * `/openapi.json` serves, for operators and the API reference). `sdk`: the surface a client is generated from
   * (`sdk/openapi.json`): no `x-internal` operation or tag, no media type marked `sdk: false`, no component left unused.
   */
  audience?: 'full' | 'sdk';
}

export interface OpenApiResult {
  document: Json;
  /** `METHOD path` of routes that exist but have no documentation: each is a bug (a test fails on it). */
  undocumented: string[];
}

const ADMIN_PREFIX = '/admin/v1';
const SCHEMA_REF = '#/components/schemas/';

/** Where the service runs: locally (`npm start`), and a deployment on AWS (API Gateway's stage URL, `ApiBaseUrl`). */
const SERVERS = [
  { url: 'http://127.0.0.1:3000', description: 'The local service (`npm start`; `PORT` changes the port).' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com/prod',
    description: 'A deployment on AWS: the stack output `ApiBaseUrl` (or the custom domain in front of it).',
    variables: {
      apiId: { default: 'a1b2c3d4e5', description: 'The REST API id (first label of `ApiBaseUrl`).' },
      region: { default: 'us-east-1', description: 'The AWS region of the stack.' },
    },
  },
];

/** `SERVERS`, with the serving service's own base URL first (and not again further down). */
function serversFor(serverUrl: string | undefined): Json[] {
  if (!serverUrl) return SERVERS;
  const own = serverUrl.replace(/\/+$/, '');
  return [{ url: own, description: 'This service.' }, ...SERVERS.filter((s) => s.url !== own)];
}

/** How a list pages: every operation whose query has `limit` and `cursor` carries it. */
const PAGINATION = { limitParam: 'limit', cursorParam: 'cursor', cursorField: 'nextCursor', itemsField: 'items' };

const SECURITY_SCHEMES = {
  adminKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sba_…',
    description: 'The admin key of the deployment (`npm start` prints it): the management API (`/admin/v1`).',
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sbk_…',
    description:
      'The project API token (`sbk_…`), from `createApiToken`: the Bots API (`/api/v1/ai`), 60 requests per minute.',
  },
  customToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sbc_…',
    description: 'A custom integration token (`sbc_…`), bound to one channel: `sendMessage` and `getMessage`.',
  },
  pollerToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sbp_…',
    description: "A poller integration's token (`sbp_…`): `pollEvents` only; any other route answers 401.",
  },
  webhookBearerToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'What Switchboard sends to your webhook receiver when the webhook has a `bearerToken`; the Standard Webhooks ' +
      'signature (`webhook-signature`) is what proves the sender.',
  },
};

/**
 * Builds the OpenAPI 3.1 document of the whole API from the code: every route of the public route table and of
 * the management API router, with the request body and query schemas the handlers validate with (converted by
 * zod's JSON Schema support), the answers, every error code each route can give, and an example of each request and
 * answer. Shaped for client generators: short verb-first `operationId`s, one tag per product, per-operation
 * security, defaulted request fields optional (named request bodies under `components.requestBodies`), raw uploads
 * as media types without a JSON type, `x-pagination` on every list.
 */
export function buildOpenApiDocument(input: OpenApiInput): OpenApiResult {
  const schemas: Record<string, Json> = {};
  const convert = (schema: z.ZodMiniType, io: 'input' | 'output') => toJsonSchema(schema, io, schemas);
  const paths: Record<string, Record<string, Json>> = {};
  const undocumented: string[] = [];
  const addOperation = (path: string, method: string, operation: Json) => {
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = operation;
  };

  const publicDocs = documentedOnce(PUBLIC_OPERATION_DOCS, areaPublicDocs());
  const adminDocs = documentedOnce(ADMIN_ROUTE_DOCS, areaAdminDocs());
  for (const route of input.publicRoutes) {
    if (route.path.includes('{proxy+}')) continue;
    const key = `${route.method} ${route.path}`;
    const doc = publicDocs[key];
    if (!doc) {
      undocumented.push(key);
      continue;
    }
    // `ANY` answers every method the same way: documented once, as POST.
    const method = route.method === 'ANY' ? 'POST' : route.method;
    addOperation(route.path, method, publicOperation(route, method, doc, convert));
  }

  const prefix = input.adminPrefix ?? ADMIN_PREFIX;
  for (const route of input.adminRoutes) {
    const key = `${route.method} ${route.path}`;
    const doc = adminDocs[key];
    if (!doc) {
      undocumented.push(`${route.method} ${prefix}${route.path}`);
      continue;
    }
    addOperation(`${prefix}${route.path}`, route.method, adminOperation(route, `${prefix}${route.path}`, doc, convert));
  }

  const errorResponse = toJsonSchemaInline(errorBody);
  errorResponse.properties.error = { ...errorResponse.properties.error, $ref: `${SCHEMA_REF}ErrorCode` };
  delete errorResponse.properties.error.type;
  schemas.ErrorResponse = errorResponse;
  schemas.OpenAiError = toJsonSchemaInline(openAiErrorBody);
  schemas.ErrorCode = {
    type: 'string',
    description: 'Every `error` code the API gives (each operation lists the ones it can give, by status).',
    enum: Object.keys(ERROR_CODES),
    'x-enum-descriptions': ERROR_CODES,
  };
  const webhooks = webhooksSection(convert);
  for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) if (schemas[name]) schemas[name].examples = [example];

  const components: Json = {
    schemas,
    requestBodies: {},
    responses: {},
    securitySchemes: SECURITY_SCHEMES,
    headers: HEADERS,
  };
  shareErrorAnswers(paths, components);
  nameRequestBodies(paths, components);
  addExamples(paths, components);

  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: input.version ?? '0.1.0',
      description: [
        'Webhooks, channel sends and the Bots API. Generated from the code: request schemas are the ones the handlers validate with.',
        '',
        'Every response carries `x-request-id`. Every answer with status >= 400 has the body `{ success: false, error, message, details?, requestId }` (`ErrorResponse`; the OpenAI-format routes answer OpenAI’s `{ error: { message, type, param, code } }`).',
        'Unknown paths answer 404 `NOT_FOUND`; a known path with the wrong method answers 405 `METHOD_NOT_ALLOWED` with `Allow`.',
        'Under the OpenAI-format routes (`/api/v1/ai/chat/…`, `/api/v1/ai/responses…`, `/api/v1/ai/models…`, `/api/v1/ai/embeddings…`) every error, those 404 and 405 included, has OpenAI’s body `{ error: { message, type, param, code } }` (`OpenAiError`).',
        'Unknown fields in a body, and unknown query parameters of a list, are rejected (400 `VALIDATION_ERROR`, one `details[]` entry each).',
        'Lists page one way: `?limit` (1 to 100, default 50) and `?cursor` (the previous page’s `nextCursor`) → `{ items, nextCursor? }`, `nextCursor` absent on the last page (`x-pagination`).',
        '',
        'Operations tagged `Inbound`, `Legacy` and `Console` are `x-internal`: provider callbacks, a retired route and what only the console calls, documented for operators and left out of the SDK document (`sdk/openapi.json`).',
      ].join('\n'),
      contact: { name: 'Switchboard', url: 'https://github.com/switchboard-api/switchboard' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: serversFor(input.serverUrl),
    tags: Object.entries(TAGS).map(([name, description]) => ({
      name,
      description,
      ...(INTERNAL_TAGS.includes(name as Tag) ? { 'x-internal': true } : {}),
    })),
    'x-tagGroups': [
      { name: 'Platform', tags: ['Projects', 'Access'] },
      { name: 'Messaging', tags: ['Channels', 'Integrations', 'Messages'] },
      { name: 'Webhooks', tags: ['Webhook deliveries', 'Webhook events'] },
      { name: 'Bots', tags: ['Bots', 'AI'] },
      { name: 'Provider callbacks and the console', tags: [...INTERNAL_TAGS] },
    ],
    paths: sortKeys(paths),
    webhooks,
    components: {
      ...components,
      schemas: sortKeys(components.schemas),
      requestBodies: sortKeys(components.requestBodies),
      responses: sortKeys(components.responses),
    },
  };
  return { document: input.audience === 'sdk' ? sdkSurface(document) : document, undocumented };
}

type Convert = (schema: z.ZodMiniType, io: 'input' | 'output') => Json;

/** The areas' docs with the ones still kept here (areas not converted yet): a route documented twice is a bug. */
function documentedOnce<T>(central: Record<string, T>, areas: Record<string, T>): Record<string, T> {
  const twice = Object.keys(areas).filter((key) => key in central);
  if (twice.length) throw new Error(`Documented both by an area and in shared/openapi: ${twice.join(', ')}`);
  return { ...central, ...areas };
}

const HEADERS = {
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

function publicOperation(route: RouteDefinition, method: string, doc: PublicOperationDoc, convert: Convert): Json {
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

function adminOperation(route: DocumentedRoute, path: string, doc: RouteDoc, convert: Convert): Json {
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

/**
 * Error answers repeat across operations (the same status, codes and headers): each distinct one becomes a
 * `components.responses` entry, named by its status and codes, and operations refer to it. Halves the document.
 */
function shareErrorAnswers(paths: Record<string, Record<string, Json>>, components: Json): void {
  const byKey = new Map<string, string>();
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      for (const [status, answer] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400 || !answer['x-error-codes']) continue;
        const key = JSON.stringify(answer);
        let name = byKey.get(key);
        if (!name) {
          const openAi = answer.content?.['application/json']?.schema?.$ref === `${SCHEMA_REF}OpenAiError`;
          const list = answer['x-error-codes'] as string[];
          // A long set is named by what its codes share (the four API-token failures: `ErrApiToken`).
          const shared = commonPrefix(list).replace(/_+$/, '');
          const codes = list.length > 2 && shared.length >= 4 ? pascal(shared) : list.map(pascal).join('Or');
          const extra = answer.headers?.['Retry-After'] ? 'RetryAfter' : '';
          name = `${openAi ? 'OpenAi' : ''}Error${status}${codes}${extra}`;
          if (components.responses[name]) throw new Error(`Two different error answers named ${name}`);
          components.responses[name] = answer;
          byKey.set(key, name);
        }
        op.responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
}

/**
 * A request body that is one named schema becomes `components.requestBodies.<name>` with the schema inline: a
 * defaulted field of a schema under `components.schemas` is typed required by openapi-typescript's default output
 * (`responseFormat`, `topK`), and optional everywhere under `requestBodies`.
 */
function nameRequestBodies(paths: Record<string, Record<string, Json>>, components: Json): void {
  const json = JSON.stringify({ paths, schemas: components.schemas });
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      const content = op.requestBody?.content as Json | undefined;
      if (!content || Object.keys(content).length !== 1) continue;
      const [media] = Object.values<Json>(content);
      const ref = media!.schema?.$ref as string | undefined;
      if (!ref?.startsWith(SCHEMA_REF) || Object.keys(media!.schema).length !== 1) continue;
      const name = ref.slice(SCHEMA_REF.length);
      // Only a schema nothing else refers to moves.
      if (json.split(`"${ref}"`).length !== 2) continue;
      media!.schema = components.schemas[name];
      delete components.schemas[name];
      components.requestBodies[name] = op.requestBody;
      op.requestBody = { $ref: `#/components/requestBodies/${name}` };
    }
}

/** Request examples by operation; answer examples composed from the schemas (named ones carry theirs). */
function addExamples(paths: Record<string, Record<string, Json>>, components: Json): void {
  const resolve = (node: Json, kind: 'requestBodies' | 'responses') =>
    node.$ref ? components[kind][node.$ref.split('/').pop()] : node;
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      if (op.requestBody) {
        const body = resolve(op.requestBody, 'requestBodies');
        const [first, ...others] = Object.entries<Json>(body.content);
        const example = REQUEST_EXAMPLES[op.operationId];
        if (first && example !== undefined && first[1].example === undefined) first[1].example = example;
        for (const [type, media] of others) {
          const other = REQUEST_EXAMPLES[`${op.operationId} ${type}`];
          if (other !== undefined) media.example = other;
        }
      }
      for (const answer of Object.values<Json>(op.responses)) {
        const content = resolve(answer, 'responses').content as Json | undefined;
        for (const [type, media] of Object.entries<Json>(content ?? {})) {
          if (media.example !== undefined || type === 'text/event-stream') continue;
          const example = exampleOf(media.schema, components.schemas);
          if (example !== undefined) media.example = example;
        }
      }
    }
}

/** The SDK surface of a full document: no `x-internal` operation or tag, no `x-sdk: false` media type, no orphan. */
function sdkSurface(full: Json): Json {
  const doc = structuredClone(full);
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op['x-internal']) {
        delete item[method];
        continue;
      }
      const body = op.requestBody?.$ref ? undefined : op.requestBody;
      for (const [type, media] of Object.entries<Json>(body?.content ?? {}))
        if (media['x-sdk'] === false) delete body.content[type];
      if (body?.content && Object.keys(body.content).length === 1) {
        const [only] = Object.values<Json>(body.content);
        if (only!.description === undefined && body.description === undefined) delete body.description;
      }
    }
    if (!Object.keys(item).length) delete doc.paths[path];
  }
  doc.tags = doc.tags.filter((t: Json) => !t['x-internal']);
  doc['x-tagGroups'] = doc['x-tagGroups']
    .map((g: Json) => ({ ...g, tags: g.tags.filter((t: string) => doc.tags.some((d: Json) => d.name === t)) }))
    .filter((g: Json) => g.tags.length);
  doc.info.description = doc.info.description.replace(
    /\n\nOperations tagged `Inbound`.*$/s,
    "\n\nThe SDK surface: the provider callbacks, the retired route and the console's own operations (`x-internal`) are documented in the full document, `/openapi.json`.",
  );
  pruneComponents(doc);
  return doc;
}

/** Drops the components nothing refers to, directly or through other components (after operations were left out). */
function pruneComponents(doc: Json): void {
  const used = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(collect);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') used.add(v);
      else collect(v);
    }
  };
  collect(doc.paths);
  collect(doc.webhooks);
  for (let before = -1; before !== used.size; ) {
    before = used.size;
    for (const ref of [...used]) {
      const [, , kind, name] = ref.split('/');
      collect(doc.components[kind!]?.[name!]);
    }
  }
  for (const kind of ['schemas', 'responses', 'requestBodies', 'headers'])
    for (const name of Object.keys(doc.components[kind] ?? {}))
      if (!used.has(`#/components/${kind}/${name}`)) delete doc.components[kind][name];
}

function securityOf(security: PublicSecurity): Json[] {
  return security === 'none' ? [] : [{ [security]: [] }];
}

function commonPrefix(codes: string[]): string {
  let prefix = codes[0]!;
  for (const code of codes) while (!code.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function pascal(code: string): string {
  return code
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/**
 * zod → JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). Named schemas (`.meta({ id })`) go to
 * `components.schemas` and are referenced; the safe-integer bounds and the date-time regex zod adds are dropped as
 * noise (the `format` says it).
 */
function toJsonSchema(schema: z.ZodMiniType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const converted = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const replacement = SCHEMA_OVERRIDES.get(ctx.zodSchema);
      if (replacement) {
        for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
        Object.assign(ctx.jsonSchema, replacement);
      }
    },
  }) as Json;
  const defs = (converted.$defs ?? {}) as Record<string, Json>;
  delete converted.$defs;
  delete converted.$schema;
  for (const [id, def] of Object.entries(defs)) components[id] = tidy(rewriteRefs(def));
  return tidy(rewriteRefs(converted));
}

function toJsonSchemaInline(schema: z.ZodMiniType): Json {
  const converted = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', reused: 'inline' }) as Json;
  const defs = (converted.$defs ?? {}) as Record<string, Json>;
  const root = converted.$ref ? (defs[String(converted.$ref).split('/').pop()!] ?? converted) : converted;
  const copy = { ...root };
  delete copy.$schema;
  delete copy.$defs;
  delete copy.id;
  return tidy(copy);
}

function rewriteRefs(value: Json): Json {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', `"${SCHEMA_REF}`)) as Json;
}

const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function tidy(value: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === 'minimum' && v === SAFE_MIN) continue;
      if (k === 'maximum' && v === SAFE_MAX) continue;
      if (k === 'pattern' && (node as Json).format === 'date-time') continue;
      out[k] = walk(v);
    }
    return out;
  };
  return walk(value) as Json;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
