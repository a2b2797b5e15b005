import type * as z from '../kernel/validation/zod.ts';

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
  Messages: 'Send a message and read its status with a custom integration token (`sbc_…`).',
  AI: 'The Bots API with the project API token (`sbk_…`); 60 requests per minute per token.',
  'Webhook events': 'What webhooks receive: one request per event type, signed (Standard Webhooks).',
  Inbound: 'Provider callbacks (Twilio, Meta): called by the providers, never by your code. Not in the SDK.',
  Legacy: 'Retired endpoints kept to answer 410 `GONE`. Not in the SDK.',
} as const;

export type Tag = keyof typeof TAGS;

/** Tags whose operations are documented for operators but kept out of the SDK surface (`x-internal`). */
export const INTERNAL_TAGS: readonly Tag[] = ['Inbound', 'Legacy'];

/** A success answer: a JSON body, an event stream, or text of a media type (what a provider expects back). */
export interface SuccessAnswer {
  description: string;
  body?: z.ZodMiniType;
  eventStream?: z.ZodMiniType;
  /** The media type of a text answer (`text/xml`, `text/plain`). */
  text?: string;
  /**
   * The answer's example when the schema does not give one (named schemas carry theirs: `examples.ts`); checked
   * against the schema by `test/unit/openapi-document.test.ts`.
   */
  example?: unknown;
}

/**
 * Documentation of a route for the generated OpenAPI document. The request body and query schemas are the route's
 * own; this adds what the code cannot tell: the operation's name, a summary and description, the answers, the error
 * codes beyond the common ones, and an example request.
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
  /** An example request body, checked against the route's body schema. */
  requestExample?: unknown;
}

/**
 * What the document reads of a management API route: `shared/http/router.ts`'s `RouteDeclaration` has this shape
 * (the admin function's `shared/openapi/admin-routes.ts`), and the document needs nothing else of it (no handler, no
 * adapter).
 */
export interface DocumentedRoute {
  method: string;
  path: string;
  body?: z.ZodMiniType | 'raw';
  idempotent?: boolean;
  /** The query string's schema: each key one parameter. A list's `limit` + `cursor` make it paginated. */
  query?: z.ZodMiniType;
}
