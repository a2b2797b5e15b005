import type { RouteDefinition } from '../contract/routes.ts';
import { ADMIN_ROUTE_DOCS } from './admin-operations.ts';
import { areaAdminDocs, areaPublicDocs } from './area-docs.ts';
import { ERROR_CODES } from '../contract/error-codes.ts';
import { PUBLIC_OPERATION_DOCS } from './public-operations.ts';
import { INTERNAL_TAGS, TAGS, type DocumentedRoute, type Tag } from '../contract/api-docs.ts';
import { errorBody, openAiErrorBody } from './schemas.ts';
import { webhooksSection } from './webhooks.ts';
import { SCHEMA_EXAMPLES } from './schema-examples.ts';
import type * as z from '../kernel/validation/zod.ts';
import { toJsonSchema, toJsonSchemaInline, sortKeys, type Json, SCHEMA_REF } from './json-schema.ts';
import { adminOperation, HEADERS, publicOperation } from './operations.ts';
import { addExamples, nameRequestBodies, sdkSurface, shareErrorAnswers } from './document-passes.ts';

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

/** The areas' docs with the ones still kept here (areas not converted yet): a route documented twice is a bug. */
function documentedOnce<T>(central: Record<string, T>, areas: Record<string, T>): Record<string, T> {
  const twice = Object.keys(areas).filter((key) => key in central);
  if (twice.length) throw new Error(`Documented both by an area and in shared/openapi: ${twice.join(', ')}`);
  return { ...central, ...areas };
}
