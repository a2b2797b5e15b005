import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';

/**
 * The one pagination pattern of every list: `?limit&cursor` in, `{ items, nextCursor? }`
 * out, `nextCursor` absent (or null) on the last page. The same names and bounds on every list, so one paginator
 * (the SDK's `paginate`) walks any of them; the OpenAPI document marks each with `x-pagination`.
 */
export const PAGE_LIMIT = { default: 50, max: 100 } as const;

/** What a cursor looks like (opaque: base64url of the list's tag and the last item's key). */
const CURSOR_EXAMPLE = 'WyJrM2Y5YTFiMiIsIkNIIzAxaHEzeDlrMm03YzR2OGI2bjV0Il0';

/** Cursors are opaque; this bounds what a request can make the service decode. */
export const MAX_CURSOR_LENGTH = 2048;

const limit = withMeta(
  z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(PAGE_LIMIT.max)), PAGE_LIMIT.default),
  { description: `Items per page, 1 to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default}).`, examples: [20] },
);

const cursor = withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_CURSOR_LENGTH))), {
  description:
    "The previous page's `nextCursor`, unchanged; leave it out for the first page. Opaque: any other value answers " +
    '400 `VALIDATION_ERROR`.',
  examples: [CURSOR_EXAMPLE],
});

/** `?limit&cursor`, nothing else (an unknown parameter answers 400, as an unknown body field does). */
export const pageQuery = z.strictObject({ limit, cursor });

/** `?limit&cursor` with a list's own filters (`status`...). */
export function pageQueryWith<S extends z.core.$ZodLooseShape>(filters: S) {
  return z.strictObject({ ...filters, limit, cursor });
}

/** The answer of a list: `{ items, nextCursor? }`, named `id` in the OpenAPI document. */
export function pageOf<T extends z.ZodMiniType>(item: T, id: string, what: string) {
  return withMeta(
    z.object({
      items: withMeta(z.array(item), { description: `${what}, at most \`limit\`.` }),
      nextCursor: withMeta(z.optional(z.nullable(z.string())), {
        description: 'Pass as `cursor` for the next page; absent (or null) on the last page.',
        examples: [CURSOR_EXAMPLE],
      }),
    }),
    { id, description: `A page of ${what.toLowerCase()}.` },
  );
}
