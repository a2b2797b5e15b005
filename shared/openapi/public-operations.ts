import { PAYLOAD_SCHEMAS } from '../messaging/index.ts';
import type * as z from '../kernel/validation/zod.ts';
import type { PublicOperationDocs } from '../contract/api-docs.ts';

/** The public routes (everything but `/admin/v1`) of areas not converted yet; the others' are in ./area-docs.ts. */
export const PUBLIC_OPERATION_DOCS: PublicOperationDocs = {};

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
