import { searchRequest } from '../knowledge/api/search-request.ts';
import { PAYLOAD_SCHEMAS } from '../messaging/index.ts';
import type * as z from '../kernel/validation/zod.ts';
import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../contract/api-docs.ts';
import * as s from './schemas.ts';

const botsApiAuthErrors = BOTS_API_AUTH_ERRORS;
const jsonBodyErrors = JSON_BODY_ERRORS;

/** The public routes (everything but `/admin/v1`) of areas not converted yet; the others' are in ./area-docs.ts. */
export const PUBLIC_OPERATION_DOCS: PublicOperationDocs = {
  'POST /api/v1/ai/search': {
    operationId: 'searchKnowledge',
    summary: "Search a bot's knowledge (free)",
    description:
      'Excerpts only, no generation. A bot with no ready documents, or a failing index, answers 200 with `trechos: []`.',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    requestBodies: [{ contentType: 'application/json', schema: searchRequest, source: 'handler' }],
    responses: { 200: { description: 'Best excerpts first, at most `topK`.', body: s.searchResult } },
    errors: { ...jsonBodyErrors, ...botsApiAuthErrors, 403: ['BOT_FORBIDDEN'], 404: ['BOT_NOT_FOUND'] },
  },
};

const addressesSchema = (what: string) => ({
  description: `${what}: one email address or a list of them (at most 50).`,
  anyOf: [
    { type: 'string', format: 'email' },
    { type: 'array', items: { type: 'string', format: 'email' }, minItems: 1, maxItems: 50 },
  ],
});

/**
 * JSON Schema for zod schemas that cannot describe themselves (fields the handlers parse with a transform).
 * Used by the document builder in place of zod's `{}`.
 */
export const SCHEMA_OVERRIDES = new Map<z.core.$ZodType, Record<string, unknown>>([
  [PAYLOAD_SCHEMAS.email.shape.to, addressesSchema('Recipients')],
  [PAYLOAD_SCHEMAS.email.shape.bcc, addressesSchema('Blind copies')],
]);
