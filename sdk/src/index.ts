/**
 * The official TypeScript client of the Switchboard API. The types come from the SDK document (`openapi.json`) through
 * openapi-typescript (`generated/schema.d.ts`), the requests go through openapi-fetch; this file is the thin
 * hand-written face: one method per operationId with the right credential, typed errors, a paginator and file
 * bodies. Webhook signature verification is `@switchboard/sdk/webhooks`.
 *
 * ```ts
 * const sb = createSwitchboard({ baseUrl: 'http://127.0.0.1:3000', adminKey: process.env.SWITCHBOARD_ADMIN_KEY });
 * const project = await sb.createProject({ body: { companyId: 1042, name: 'Acme' } });
 * for await (const channel of sb.paginate('listChannels', { params: { path: { projectId: project.projectId } } })) …
 * ```
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { components, paths, webhooks } from './generated/schema.d.ts';
import { DOCUMENT_SHA256, OPERATIONS, type OperationId } from './generated/operations.ts';

export type { components, paths, webhooks, OperationId };
export { DOCUMENT_SHA256, OPERATIONS };
// Webhook verification (Standard Webhooks) is its own entry, `@switchboard/sdk/webhooks`: an app that only calls
// the API does not bundle it.
export type { WebhookEvent } from './webhooks.ts';

/** The API's named schemas: `Schemas['Project']`, `Schemas['Delivery']`… */
export type Schemas = components['schemas'];
/** Every `error` code of the contract's error body. */
export type ErrorCode = Schemas['ErrorCode'];

/** The four credentials; each operation takes one of them (or none). */
export type Credential = 'adminKey' | 'apiToken' | 'customToken' | 'pollerToken';

export interface SwitchboardOptions {
  /** The API's base URL: `http://127.0.0.1:3000` locally, the stack output `ApiBaseUrl` when deployed. */
  baseUrl: string;
  /** `sba_…`: the management API (`/admin/v1`). */
  adminKey?: string | undefined;
  /** `sbk_…`: the Bots API (`/api/v1/ai`). */
  apiToken?: string | undefined;
  /** `sbc_…`: `sendMessage` and `getMessage` on the token's channel. */
  customToken?: string | undefined;
  /** `sbp_…`: a poller's `listEvents`. */
  pollerToken?: string | undefined;
  /** A `fetch` of your own (tests, proxies, retries). */
  fetch?: typeof globalThis.fetch;
}

type Path<K extends OperationId> = (typeof OPERATIONS)[K]['path'];
type Method<K extends OperationId> = (typeof OPERATIONS)[K]['method'];
/** The request of an operation: `params` (path, query, header) and `body`, as openapi-fetch takes them. */
export type RequestOf<K extends OperationId> = MaybeOptionalInit<paths[Path<K>], Method<K>>;
type Args<K extends OperationId> = undefined extends RequestOf<K> ? [request?: RequestOf<K>] : [request: RequestOf<K>];
type OperationOf<K extends OperationId> = NonNullable<paths[Path<K>][Method<K>]>;
type Success<K extends OperationId> =
  // biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's own constraint on an operation.
  OperationOf<K> extends Record<string | number, any>
    ? Exclude<FetchResponse<OperationOf<K>, RequestOf<K>, 'application/json'>['data'], undefined>
    : never;
/** The success answer's body of an operation (`void` when it answers 204). */
export type ResponseOf<K extends OperationId> = [Success<K>] extends [never] ? undefined : Success<K>;

/** The operations that page (`x-pagination`): `limit` and `cursor` in, `{ items, nextCursor? }` out. */
export type PaginatedOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K]['paginated'] extends true ? K : never;
}[OperationId];
/** One item of a paginated operation's answer. */
export type ItemOf<K extends PaginatedOperationId> =
  NonNullable<ResponseOf<K>> extends { items: (infer T)[] } ? T : never;

/** The client: one method per operationId, plus the paginator, the upload form of extract and the raw client. */
export type Switchboard = {
  [K in OperationId]: (...request: Args<K>) => Promise<ResponseOf<K>>;
} & {
  /**
   * Every item of a list, page after page (`limit` per request, default 50): follows `nextCursor` until the last
   * page.
   */
  paginate<K extends PaginatedOperationId>(operation: K, ...request: Args<K>): AsyncGenerator<ItemOf<K>>;
  /** `POST /api/v1/ai/extract` for a PDF uploaded first with `createExtractUpload` (its `fileKey`). */
  extractFromUpload(body: { fileKey: string; mode?: 'text' | 'pages' }): Promise<Schemas['ExtractResult']>;
  /** The openapi-fetch client underneath (no credential added): `sb.client.GET('/admin/v1/projects', …)`. */
  client: Client<paths>;
};

/** An answer with status >= 400, or a request the client could not send; `code` is the API's error code. */
export class SwitchboardError extends Error {
  override readonly name = 'SwitchboardError';

  constructor(
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The contract's code (`VALIDATION_ERROR`, `BOT_NOT_FOUND`…), or OpenAI's on the OpenAI-format routes. */
    readonly code: ErrorCode | (string & {}),
    message: string,
    /** The request's `x-request-id`: give it when asking for support. */
    readonly requestId: string | undefined,
    /** Validation problems, one per field (400 `VALIDATION_ERROR`). */
    readonly details: { path: string; message: string; code: string }[],
    /** The answer's body as it came. */
    readonly body: unknown,
    /** Seconds the API asked to wait before retrying (`Retry-After`: 429 over a limit, 503 while it is busy). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Creates a client for one deployment with the credentials you have; each call picks the one its operation takes. */
export function createSwitchboard(options: SwitchboardOptions): Switchboard {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function call(id: OperationId, request: Record<string, unknown> = {}): Promise<unknown> {
    const operation = OPERATIONS[id];
    const headers = new Headers(request.headers as ConstructorParameters<typeof Headers>[0]);
    if (operation.security && !headers.has('authorization')) {
      const token = options[operation.security];
      if (!token)
        throw new SwitchboardError(
          0,
          'MISSING_CREDENTIAL',
          `${id} needs the ${operation.security}: pass it to createSwitchboard.`,
          undefined,
          [],
          undefined,
        );
      headers.set('authorization', `Bearer ${token}`);
    }
    const body = request.body;
    let serializer: ((body: unknown) => unknown) | undefined;
    if (operation.body === 'raw') {
      // The bytes as they are, typed by the Blob (or by a Content-Type header given with a string or bytes).
      if (!headers.has('content-type') && body instanceof Blob && body.type) headers.set('content-type', body.type);
      if (!headers.has('content-type'))
        throw new TypeError(`${id}: give the file as a Blob with a type, or a Content-Type header.`);
      serializer = (raw) => raw;
    } else if (operation.body === 'multipart') {
      serializer = (fields) => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
          if (value === undefined) continue;
          if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : `${name}.pdf`);
          else form.append(name, String(value));
        }
        return form;
      };
    }
    const answer = await client.request(
      operation.method,
      operation.path as never,
      {
        ...request,
        headers,
        ...(serializer ? { bodySerializer: serializer } : {}),
      } as never,
    );
    return unwrap(answer as { data?: unknown; error?: unknown; response: Response });
  }

  const sb = { client } as Switchboard;
  for (const id of Object.keys(OPERATIONS) as OperationId[])
    (sb as unknown as Record<string, unknown>)[id] = (request?: Record<string, unknown>) => call(id, request);

  sb.paginate = async function* paginate(id: PaginatedOperationId, request?: RequestOf<PaginatedOperationId>) {
    const base = (request ?? {}) as { params?: { path?: unknown; query?: Record<string, unknown> } };
    let cursor: string | undefined;
    do {
      const page = (await call(id, {
        ...base,
        params: { ...base.params, query: { ...base.params?.query, ...(cursor ? { cursor } : {}) } },
      })) as { items: unknown[]; nextCursor?: string | null };
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  } as Switchboard['paginate'];

  sb.extractFromUpload = async (body) => {
    if (!options.apiToken)
      throw new SwitchboardError(
        0,
        'MISSING_CREDENTIAL',
        'extractFromUpload needs the apiToken: pass it to createSwitchboard.',
        undefined,
        [],
        undefined,
      );
    const answer = await client.POST('/api/v1/ai/extract', {
      headers: { authorization: `Bearer ${options.apiToken}`, 'content-type': 'application/json' },
      body: body as never,
      bodySerializer: (b: unknown) => JSON.stringify(b),
    });
    return (await unwrap(answer)) as Schemas['ExtractResult'];
  };
  return sb;
}

/** The body of a 2xx answer; any other answer as a {@link SwitchboardError}, in either error format of the API. */
export async function unwrap<T>(
  call: { data?: T; error?: unknown; response: Response } | Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const wait = Number.isFinite(retryAfter) ? retryAfter : undefined;
  // biome-ignore lint/suspicious/noExplicitAny: an error body in either format, read field by field.
  const body = error as Record<string, any> | string | undefined;
  if (body && typeof body === 'object' && typeof body.error === 'string')
    throw new SwitchboardError(
      response.status,
      body.error,
      String(body.message),
      requestId,
      body.details ?? [],
      body,
      wait,
    );
  if (body && typeof body === 'object' && body.error && typeof body.error === 'object')
    throw new SwitchboardError(
      response.status,
      String(body.error.code ?? body.error.type),
      String(body.error.message),
      requestId,
      [],
      body,
      wait,
    );
  throw new SwitchboardError(
    response.status,
    `HTTP_${response.status}`,
    `The API answered ${response.status}.`,
    requestId,
    [],
    body,
    wait,
  );
}
