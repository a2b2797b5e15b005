import type * as z from '../kernel/validation/zod.ts';
import type { ErrorsByStatus } from './error-codes.ts';

/**
 * How a route is documented in the OpenAPI document. Each area writes the documentation of its own routes beside
 * them (`shared/<area>/api/`), in these terms; `shared/openapi` only assembles the document from the areas.
 */

/**
 * The document's tags, one product each (a generator turns them into classes or files). `Inbound` and `Legacy` are
 * `x-internal`: documented for operators, left out of the SDK surface.
 */
export const TAGS = {
  Projects: 'Management API (admin key): projects, the project API token, bot credits.',
  Channels: 'Management API (admin key): WhatsApp numbers, mailboxes and SMS senders, and the sandbox.',
  Integrations: 'Management API (admin key): webhooks and custom integrations, and their secrets.',
  'Webhook deliveries': 'Management API (admin key): events, test events, the delivery log, retries, recovery, health.',
  Bots: 'Management API (admin key): bots and their knowledge files.',
  Access:
    "Management API: a project's own keys (`sbm_…`, with a role), portal links that open the console for one project, and the audit log.",
  Console: 'What the console itself calls: opening a portal link, and who the caller is. Not in the SDK.',
  Messages: 'Send a message and read its status with a custom integration token (`sbc_…`).',
  AI: 'The Bots API with the project API token (`sbk_…`); 60 requests per minute per token.',
  'Webhook events': 'What webhooks receive: one request per event type, signed (Standard Webhooks).',
  Inbound: 'Provider callbacks (Twilio, Meta): called by the providers, never by your code. Not in the SDK.',
  Legacy: 'Retired endpoints kept to answer 410 `GONE`. Not in the SDK.',
} as const;

export type Tag = keyof typeof TAGS;

/** Tags whose operations are documented for operators but kept out of the SDK surface (`x-internal`). */
export const INTERNAL_TAGS: readonly Tag[] = ['Inbound', 'Legacy', 'Console'];

/** A success answer: a JSON body, an event stream, or text of a media type (what a provider expects back). */
export interface SuccessAnswer {
  description: string;
  body?: z.ZodMiniType;
  eventStream?: z.ZodMiniType;
  /** The media type of a text answer (`text/xml`, `text/plain`). */
  text?: string;
  /**
   * The answer's example when the schema does not give one (named schemas carry theirs: `shared/openapi/examples.ts`);
   * checked against the schema by `test/unit/openapi-document.test.ts`.
   */
  example?: unknown;
}

/**
 * Documentation of a management API route. The request body and query schemas are the route's own; this adds what
 * the code cannot tell: the operation's name, a summary and description, the answers, the error codes beyond the
 * common ones.
 */
export interface RouteDoc {
  /** Stable, short, verb-first (`createProject`, `listDeliveries`): the SDK's method name. Never change it. */
  operationId: string;
  summary: string;
  description: string;
  tags: [Tag];
  /** Success answers by status: the body's zod schema, or none (204, 202 without body). */
  responses: Record<number, SuccessAnswer>;
  /** Error codes by status beyond the common ones (401, 404 NOT_FOUND, validation, 500): `{ 409: ['CONFLICT'] }`. */
  errors?: Record<number, string[]>;
  /** For `body: 'raw'`: the media types accepted. */
  rawContentTypes?: string[];
}

/**
 * The documentation of an area's management routes, one entry per route, by the route's name: a route without its
 * entry does not compile. Written as a function so that no function's bundle carries it (only the document calls
 * it).
 */
export type RouteDocs<D> = { [K in keyof D]: RouteDoc };

/**
 * What the document reads of a management API route: `shared/http/router.ts`'s `RouteDeclaration` has this shape,
 * and the document needs nothing else of it (no handler, no adapter).
 */
export interface DocumentedRoute {
  method: string;
  path: string;
  body?: z.ZodMiniType | 'raw';
  idempotent?: boolean;
  /** The query string's schema: each key one parameter. A list's `limit` + `cursor` make it paginated. */
  query?: z.ZodMiniType;
}

/** Which credential a public route takes in `Authorization: Bearer …`. */
export type PublicSecurity = 'customToken' | 'apiToken' | 'none';

/**
 * A request body: the zod schema the handler validates with (`source: 'handler'`), or, where the handler keeps its
 * schema private, a documentation copy (`source: 'copy'`, flagged in the document as `x-schema-source`) until the
 * handler exports it. A raw JSON Schema is for bodies no zod schema describes (multipart, and the bodies a provider
 * posts in its own format: the signature, not a schema, decides what is taken).
 */
export interface PublicRequestBody {
  contentType: string;
  description?: string;
  schema: z.ZodMiniType | Record<string, unknown>;
  source: 'handler' | 'copy' | 'multipart' | 'provider';
  /**
   * `false`: left out of the SDK document (the operation keeps its other media types there). For a second form of
   * one operation that generators cannot tell apart from the first (they keep one media type, or send a union as
   * JSON); the SDK's face covers it by hand.
   */
  sdk?: false;
}

/** Documentation of a public route of `shared/contract/routes.ts`, keyed by `METHOD path` as declared there. */
export interface PublicOperationDoc {
  /** Stable, short, verb-first (`sendMessage`, `createChatCompletion`): the SDK's method name. Never change it. */
  operationId: string;
  summary: string;
  description: string;
  tags: [Tag];
  security: PublicSecurity;
  /** Retired: answers only an error now (kept for old callers). */
  deprecated?: boolean;
  /** Query parameters the handler reads, as a JSON Schema object (a provider's, documented for operators). */
  query?: { properties: Record<string, Record<string, unknown>>; required?: string[] };
  /** A list: takes `?limit&cursor` (the one pagination pattern) and answers a page. */
  paged?: boolean;
  /** Accepts the `Idempotency-Key` header. */
  idempotent?: boolean;
  /** Answers carry the Bots API rate limit headers. */
  rateLimited?: boolean;
  /** `openai`: errors use OpenAI's body (`{ error: { message, type, param, code } }`), not the contract's. */
  errorFormat?: 'openai';
  requestBodies?: PublicRequestBody[];
  /** The body may be left out (it is still validated when sent). */
  requestBodyOptional?: boolean;
  responses: Record<number, SuccessAnswer>;
  errors: ErrorsByStatus;
}

/** An area's public routes' documentation by `METHOD path` (as `shared/contract/routes.ts` declares them). */
export type PublicOperationDocs = Record<string, PublicOperationDoc>;

/** What every Bots API route (`/api/v1/ai/*`, project API token) may answer before it runs. */
export const BOTS_API_AUTH_ERRORS: ErrorsByStatus = {
  401: [
    'ERR_API_TOKEN_NOT_PROVIDED',
    'ERR_API_TOKEN_INVALID_FORMAT',
    'ERR_API_TOKEN_INVALID',
    'ERR_API_TOKEN_AUTHENTICATION_FAILED',
  ],
  429: ['ERR_PUBLIC_AI_RATE_LIMIT'],
};

/** What a route that reads a JSON body may answer about it. */
export const JSON_BODY_ERRORS: ErrorsByStatus = {
  400: ['INVALID_JSON', 'VALIDATION_ERROR'],
  413: ['PAYLOAD_TOO_LARGE'],
};

/** What a route that takes `Idempotency-Key` may answer about it. */
export const IDEMPOTENCY_ERRORS: ErrorsByStatus = { 409: ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'] };
