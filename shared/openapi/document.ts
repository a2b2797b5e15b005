import type { RouteDefinition } from '../contract/routes.ts';
import { ADMIN_ROUTE_DOCS } from './admin-operations.ts';
import { ERROR_CODES, mergeErrors, type ErrorsByStatus } from '../contract/error-codes.ts';
import {
  PUBLIC_OPERATION_DOCS,
  SCHEMA_OVERRIDES,
  type PublicOperationDoc,
  type PublicSecurity,
  type SuccessAnswer,
} from './public-operations.ts';
import type { DocumentedRoute, RouteDoc } from './route-doc.ts';
import { errorBody, openAiErrorBody } from './schemas.ts';
import { openAiCodeFor } from '../completion/api/openai/error-codes.ts';
import { webhooksSection } from './webhooks.ts';
import * as z from '../kernel/validation/zod.ts';

type Json = Record<string, unknown>;

export interface OpenApiInput {
  /** The management API's route declarations (`shared/openapi/admin-routes.ts`), as the admin function's router serves them. */
  adminRoutes: readonly DocumentedRoute[];
  /** The public route table (`shared/contract/routes.ts`). */
  publicRoutes: readonly RouteDefinition[];
  /** Prefix of the management API routes. */
  adminPrefix?: string;
  version?: string;
  /** `servers[0].url`; omitted: relative to where the document is served. */
  serverUrl?: string;
}

export interface OpenApiResult {
  document: Json;
  /** `METHOD path` of routes that exist but have no documentation: each is a bug (a test fails on it). */
  undocumented: string[];
}

const ADMIN_PREFIX = '/admin/v1';
const SCHEMA_REF = '#/components/schemas/';

/**
 * Builds the OpenAPI 3.1 document of the whole API from the code: every route of the public route table and of
 * the management API router, with the request body schemas the handlers validate with (converted by zod's JSON
 * Schema support), the answers, and every error code each route can give.
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

  for (const route of input.publicRoutes) {
    if (route.path.includes('{proxy+}')) continue;
    const key = `${route.method} ${route.path}`;
    const doc = PUBLIC_OPERATION_DOCS[key];
    if (!doc) {
      undocumented.push(key);
      continue;
    }
    // `ANY` answers every method the same way: documented once, as POST.
    addOperation(route.path, route.method === 'ANY' ? 'POST' : route.method, publicOperation(route, doc, convert));
  }

  const prefix = input.adminPrefix ?? ADMIN_PREFIX;
  for (const route of input.adminRoutes) {
    const key = `${route.method} ${route.path}`;
    const doc = ADMIN_ROUTE_DOCS[key];
    if (!doc) {
      undocumented.push(`${route.method} ${prefix}${route.path}`);
      continue;
    }
    addOperation(`${prefix}${route.path}`, route.method, adminOperation(route, doc, convert));
  }

  schemas.Error = toJsonSchemaInline(errorBody);
  schemas.OpenAiError = toJsonSchemaInline(openAiErrorBody);
  schemas.ErrorCode = {
    type: 'string',
    description: 'Every `error` code the API gives.',
    enum: Object.keys(ERROR_CODES),
    'x-enum-descriptions': ERROR_CODES,
  };

  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: input.version ?? '0.1.0',
      description: [
        'Webhooks, channel sends and the Bots API. Generated from the code: request schemas are the ones the handlers validate with.',
        '',
        'Every response carries `x-request-id`. Every answer with status >= 400 has the body `{ success: false, error, message, details?, requestId }`.',
        'Unknown paths answer 404 `NOT_FOUND`; a known path with the wrong method answers 405 `METHOD_NOT_ALLOWED` with `Allow`.',
        'Under the OpenAI-format routes (`/api/v1/ai/chat/…`, `/api/v1/ai/responses…`, `/api/v1/ai/models…`, `/api/v1/ai/embeddings…`) every error, those 404 and 405 included, has OpenAI’s body `{ error: { message, type, param, code } }` (`OpenAiError`).',
        'Unknown fields in a body are rejected (400 `VALIDATION_ERROR`, one `details[]` entry each).',
      ].join('\n'),
    },
    ...(input.serverUrl ? { servers: [{ url: input.serverUrl }] } : {}),
    tags: [
      { name: 'Send', description: 'Send a message on one channel with a custom token (`sbc_…`).' },
      {
        name: 'Bots API',
        description: 'AI bots from your code with the project API token (`sbk_…`); 60 requests per minute per token.',
      },
      { name: 'Projects', description: 'Management API: projects, the project API token, bot credits.' },
      { name: 'Channels', description: 'Management API: WhatsApp numbers, mailboxes and SMS senders.' },
      {
        name: 'Integrations',
        description: 'Management API: webhooks and custom integrations (Settings → Integrations).',
      },
      { name: 'Webhook deliveries', description: 'Management API: events, test events, the delivery log and retries.' },
      { name: 'Bots', description: 'Management API: bots and their knowledge files.' },
      { name: 'Webhook events', description: 'What webhooks receive: one request per event type.' },
    ],
    paths: sortPaths(paths),
    webhooks: webhooksSection(convert),
    components: {
      schemas: sortKeys(schemas),
      securitySchemes: {
        adminKey: { type: 'http', scheme: 'bearer', description: 'The admin key (`npm start` prints it).' },
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The project API token (`sbk_…`), from `POST /admin/v1/projects/{projectId}/api-token`.',
        },
        customToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A custom integration token (`sbc_…`), bound to one channel.',
        },
      },
      headers: {
        'x-request-id': {
          description: "The caller's `x-request-id` when it matches `^[A-Za-z0-9._:-]{1,128}$`, else a new id.",
          schema: { type: 'string' },
        },
        'RateLimit-Limit': { description: 'Requests per minute allowed for the token.', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left right now.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds until the next request would pass.', schema: { type: 'integer' } },
        'Idempotent-Replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
          schema: { type: 'string' },
        },
      },
    },
  };
  return { document, undocumented };
}

type Convert = (schema: z.ZodMiniType, io: 'input' | 'output') => Json;

function publicOperation(route: RouteDefinition, doc: PublicOperationDoc, convert: Convert): Json {
  const errors = mergeErrors(doc.errors, { 500: ['INTERNAL_ERROR'] });
  const headers = responseHeaders(doc.rateLimited ?? false, doc.idempotent ?? false);
  const operation: Json = {
    operationId: operationId(route.method === 'ANY' ? 'POST' : route.method, route.path),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    security: securityOf(doc.security),
  };
  const pathParameters = [...route.path.matchAll(/\{([^}+]+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [...pathParameters, ...(doc.idempotent ? [idempotencyKeyParameter] : [])];
  if (parameters.length) operation.parameters = parameters;
  if (doc.requestBodies?.length) {
    const content: Json = {};
    for (const body of doc.requestBodies) {
      const schema = body.schema instanceof z.ZodMiniType ? convert(body.schema, 'input') : body.schema;
      content[body.contentType] = {
        schema: body.source === 'copy' ? { ...schema, 'x-schema-source': 'documentation copy' } : schema,
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
  operation.responses = responses(doc.responses, errors, convert, headers, doc.rateLimited ?? false, doc.errorFormat);
  if (route.method === 'ANY') operation['x-any-method'] = true;
  return operation;
}

function adminOperation(route: DocumentedRoute, doc: RouteDoc, convert: Convert): Json {
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const common: ErrorsByStatus = { 401: ['UNAUTHORIZED'], 500: ['INTERNAL_ERROR'] };
  if (pathParams.length) common[404] = ['NOT_FOUND'];
  if (route.body && route.body !== 'raw') common[400] = ['INVALID_JSON', 'VALIDATION_ERROR'];
  if (route.body && route.body !== 'raw') common[413] = ['PAYLOAD_TOO_LARGE'];
  if (doc.query) common[400] = [...(common[400] ?? []), 'VALIDATION_ERROR'];
  if (route.idempotent) common[409] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'];
  const errors = mergeErrors(common, (doc.errors ?? {}) as ErrorsByStatus);

  const parameters: Json[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.idempotent) parameters.push(idempotencyKeyParameter);
  if (doc.query) {
    const query = convert(doc.query, 'input');
    const properties = (query.properties ?? {}) as Record<string, Json>;
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(properties)) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  const operation: Json = {
    operationId: operationId(route.method, route.path),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags ?? ['Management'],
    security: [{ adminKey: [] }],
    ...(parameters.length ? { parameters } : {}),
  };
  if (route.body === 'raw') {
    operation.requestBody = {
      required: true,
      content: Object.fromEntries(
        (doc.rawContentTypes ?? ['application/octet-stream']).map((t) => [
          t,
          { schema: { type: 'string', contentMediaType: t } },
        ]),
      ),
    };
  } else if (route.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: convert(route.body, 'input') } },
    };
  }
  operation.responses = responses(
    doc.responses,
    errors,
    convert,
    responseHeaders(false, route.idempotent ?? false),
    false,
  );
  return operation;
}

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Same key and same body within 24 h: the stored answer is returned (`Idempotent-Replayed: true`) and nothing runs or is charged again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

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
  rateLimited: boolean,
  errorFormat?: 'openai',
): Json {
  const out: Json = {};
  for (const [status, answer] of Object.entries(success)) {
    const content: Json = {};
    if (answer.body) content['application/json'] = { schema: convert(answer.body, 'output') };
    if (answer.eventStream) content['text/event-stream'] = { schema: convert(answer.eventStream, 'output') };
    if (answer.text) content[answer.text] = { schema: { type: 'string' } };
    out[status] = {
      description: answer.description,
      headers,
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  if (errorFormat === 'openai') {
    for (const [status, codes] of Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b))) {
      if (!codes?.length) continue;
      const errorHeaders: Json = { 'x-request-id': { $ref: '#/components/headers/x-request-id' } };
      if (status === '429' && rateLimited) errorHeaders['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
      out[status] = {
        description: codes.map((code) => `\`${openAiCodeFor(code)}\` (${code}): ${ERROR_CODES[code]}`).join('\n\n'),
        headers: errorHeaders,
        content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}OpenAiError` } } },
        'x-error-codes': [...codes],
      };
    }
    return out;
  }
  for (const [status, codes] of Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b))) {
    if (!codes?.length) continue;
    const errorHeaders: Json = { 'x-request-id': { $ref: '#/components/headers/x-request-id' } };
    if (status === '429' && rateLimited) errorHeaders['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === '405') errorHeaders.Allow = { schema: { type: 'string' } };
    out[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code]}`).join('\n\n'),
      headers: errorHeaders,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: `${SCHEMA_REF}Error` },
              { type: 'object', properties: { error: { type: 'string', enum: [...codes] } } },
            ],
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

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/(admin\/v1|api)\//, '/')
    .split(/[/{}-]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)));
  return `${method.toLowerCase()}${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
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

function sortPaths(paths: Record<string, Record<string, Json>>): Json {
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sortKeys(record: Record<string, Json>): Json {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
