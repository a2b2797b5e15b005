import * as z from './zod.ts';

/**
 * A copy of `schema` carrying `meta` (description, examples, `id` of a named OpenAPI component...) in zod's global
 * registry, which the OpenAPI document reads; validation is unchanged. What classic zod's `.meta()` did.
 *
 * Decision: neither mini's `schema.register(z.globalRegistry, meta)` (registers the schema itself, so a shared
 * schema would carry one caller's description everywhere) nor `schema.check(z.meta(meta))` (the metadata becomes a
 * check that every later clone re-applies: `z.extend()` of a named schema would register its `id` a second time).
 */
export function withMeta<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}
