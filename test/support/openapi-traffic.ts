import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Live traffic against the OpenAPI document: HTTP exchanges with the local service are recorded (by wrapping this
 * process's `fetch`, which the e2e tests use) and checked against `/openapi.json` with a JSON Schema 2020-12
 * validator (OpenAPI 3.1's dialect). A generated client or a validating proxy trusts that document; every request
 * the service accepts and every answer it gives must be described by it.
 */

/** Where recorded exchanges go when `OPENAPI_TRAFFIC_DIR` is set (one JSON line per exchange, a file per process). */
export const TRAFFIC_DIR_ENV = 'OPENAPI_TRAFFIC_DIR';

export type RecordedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'multipart'; fields: string[] }
  | { kind: 'bytes'; length: number };

export interface Exchange {
  method: string;
  /** Path and query, without the origin. */
  path: string;
  requestContentType?: string;
  requestBody?: RecordedBody;
  status: number;
  responseContentType?: string;
  responseHeaders: Record<string, string>;
  responseBody?: RecordedBody;
}

/**
 * Records every `fetch` to `baseUrl` made in this process until `stop()`. Bodies are recorded as the client sent
 * them (JSON parsed, multipart as its field names) and as the service answered (read from a clone; streams too).
 */
export function recordTraffic(baseUrl: string): { exchanges: Exchange[]; settled(): Promise<void>; stop(): void } {
  const exchanges: Exchange[] = [];
  const reading: Promise<void>[] = [];
  const original = globalThis.fetch;
  const recording: typeof fetch = async (input, init) => {
    // A Request given as input (openapi-fetch sends those) is read from a clone: its own body is the caller's to send.
    const given = input instanceof Request ? input : undefined;
    const request = given ? given.clone() : new Request(input, init);
    if (!request.url.startsWith(baseUrl)) return original(input, init);
    const requestBody = await recordRequestBody(given ? (request.body ? request : undefined) : init?.body, request);
    const response = await original(input, init);
    const url = new URL(request.url);
    const exchange: Exchange = {
      method: request.method,
      path: url.pathname + url.search,
      ...(request.headers.get('content-type') ? { requestContentType: request.headers.get('content-type')! } : {}),
      ...(requestBody ? { requestBody } : {}),
      status: response.status,
      ...(response.headers.get('content-type') ? { responseContentType: response.headers.get('content-type')! } : {}),
      responseHeaders: Object.fromEntries(response.headers),
    };
    exchanges.push(exchange);
    // A streamed answer is not read here: reading a clone would keep the connection open after the caller let go of
    // its own branch (a client that disconnects mid-stream would never be seen to go). Its status and headers count.
    if (exchange.responseContentType?.startsWith('text/event-stream')) return response;
    reading.push(
      response
        .clone()
        .arrayBuffer()
        .then((bytes) => {
          const body = parseBody(Buffer.from(bytes), exchange.responseContentType);
          if (body) exchange.responseBody = body;
        })
        .catch(() => undefined),
    );
    return response;
  };
  globalThis.fetch = recording;
  return {
    exchanges,
    settled: async () => void (await Promise.all(reading)),
    stop: () => {
      if (globalThis.fetch === recording) globalThis.fetch = original;
    },
  };
}

async function recordRequestBody(body: unknown, request: Request): Promise<RecordedBody | undefined> {
  if (body === undefined || body === null) return undefined;
  if (body instanceof FormData) return { kind: 'multipart', fields: [...body.keys()] };
  if (body instanceof ReadableStream) return { kind: 'bytes', length: -1 };
  const bytes = Buffer.from(await request.clone().arrayBuffer());
  const type = request.headers.get('content-type') ?? '';
  if (type.startsWith('multipart/form-data')) return { kind: 'multipart', fields: multipartFieldNames(bytes) };
  return parseBody(bytes, type);
}

function multipartFieldNames(bytes: Buffer): string[] {
  return [...bytes.toString('latin1').matchAll(/Content-Disposition:\s*form-data;\s*name="([^"]*)"/gi)].map(
    (m) => m[1]!,
  );
}

function parseBody(bytes: Buffer, contentType: string | undefined): RecordedBody | undefined {
  if (!bytes.length) return undefined;
  // Bodies past 1 MB are hostile-input tests (a body nested millions deep): parsing them here would cost seconds and
  // writing them back would overflow the stack; what they are checked for is their status, not their schema.
  if (bytes.length > 1_000_000) return { kind: 'bytes', length: bytes.length };
  if (contentType && /^application\/(.+\+)?json/.test(contentType)) {
    try {
      return { kind: 'json', value: JSON.parse(bytes.toString('utf8')) };
    } catch {
      return { kind: 'text', text: bytes.toString('utf8') };
    }
  }
  if (contentType?.startsWith('text/')) return { kind: 'text', text: bytes.toString('utf8').slice(0, 10_000) };
  return { kind: 'bytes', length: bytes.length };
}

/** Appends exchanges to this process's file under `OPENAPI_TRAFFIC_DIR` (no-op when it is not set). */
export function saveTraffic(exchanges: Exchange[]): void {
  const dir = process.env[TRAFFIC_DIR_ENV];
  if (!dir || !exchanges.length) return;
  mkdirSync(dir, { recursive: true });
  const lines = exchanges.flatMap((e) => {
    try {
      return [`${JSON.stringify(e)}\n`];
    } catch {
      return []; // a body too deep to write back (a hostile-input test's) is left out of the record
    }
  });
  appendFileSync(join(dir, `traffic-${process.pid}.jsonl`), lines.join(''));
}

/** Every exchange saved under `dir` by earlier runs. */
export function loadTraffic(dir: string): Exchange[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Exchange),
    );
}

type Json = Record<string, any>;

interface Operation {
  key: string;
  method: string;
  template: string;
  pattern: RegExp;
  specificity: number;
  op: Json;
}

/**
 * The paths the document describes; the others (the console, the document itself, local stand-ins for S3
 * uploads) are not checked.
 */
const DOCUMENTED_PREFIXES = ['/api/', '/admin/v1/', '/inbound/'];

/** The OpenAI-format routes' neighbourhood: their 404 and 405 have OpenAI's error body (the document says so). */
const OPENAI_FORMAT = /^\/api\/v1\/ai\/(chat(\/|$)|responses(\/|$)|models(\/|$)|embeddings(\/|$))/;

/**
 * A checker for exchanges against an OpenAPI 3.1 document. `check` answers the problems of one exchange (empty when
 * it conforms) and the operation it exercised:
 * - the path and method are a documented operation (else the answer must be the documented 404 or 405 error);
 * - the status is one the operation documents, and a JSON answer matches that status's schema;
 * - a request the service accepted (2xx) has a documented content type and matches its schema, and a request
 *   body the operation does not document is a problem (a validating proxy would refuse the call).
 */
export function openApiChecker(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  // Operation schemas refer to `#/components/schemas/…`: the components are one schema of their own that every
  // compiled schema refers into, so each component is compiled once, not again inside every schema that reaches it.
  ajv.addSchema({ $id: 'document', components: document.components });
  const compiled = new Map<object, ValidateFunction>();
  const validator = (schema: object) => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/')));
      compiled.set(schema, v);
    }
    return v;
  };
  const errorSchema = { $ref: '#/components/schemas/ErrorResponse' };
  // Shared answers and named request bodies are `$ref`s into `components`.
  const resolve = (node: Json | undefined, kind: 'responses' | 'requestBodies'): Json | undefined =>
    typeof node?.$ref === 'string' ? document.components?.[kind]?.[node.$ref.split('/').pop()!] : node;
  const openAiErrorSchema = { $ref: '#/components/schemas/OpenAiError' };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
      );
      operations.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pattern,
        specificity: -params,
        op,
      });
    }
  }

  const find = (method: string, pathname: string) => {
    const candidates = operations.filter((o) => o.pattern.test(pathname)).sort((a, b) => b.specificity - a.specificity);
    const exact = candidates.find((o) => o.method === method || (o.op['x-any-method'] && method !== 'OPTIONS'));
    return { operation: exact, pathKnown: candidates.length > 0 };
  };

  const schemaProblems = (what: string, schema: object, value: unknown): string[] => {
    const validate = validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${what}${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  };

  function check(exchange: Exchange): { operation?: string; problems: string[] } {
    const pathname = new URL(exchange.path, 'http://x').pathname;
    if (!DOCUMENTED_PREFIXES.some((p) => pathname.startsWith(p))) return { problems: [] };
    const { operation, pathKnown } = find(exchange.method, pathname);
    const problems: string[] = [];
    const label = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    if (!exchange.responseHeaders['x-request-id']) problems.push(`${label}: no x-request-id`);
    if (!operation) {
      // Answered by the document's general rule: unknown path 404, known path with another method 405.
      const expected = pathKnown ? 405 : 404;
      if (exchange.status !== expected) problems.push(`${label}: not a documented operation (expected ${expected})`);
      else if (exchange.responseBody?.kind === 'json')
        problems.push(
          ...schemaProblems(
            `${label}: error body`,
            OPENAI_FORMAT.test(pathname) ? openAiErrorSchema : errorSchema,
            exchange.responseBody.value,
          ),
        );
      return { problems };
    }
    const documented = resolve(
      operation.op.responses?.[String(exchange.status)] ?? operation.op.responses?.default,
      'responses',
    );
    if (!documented) problems.push(`${label}: status ${exchange.status} not documented for ${operation.key}`);
    else problems.push(...responseProblems(label, documented, exchange));
    if (exchange.status >= 200 && exchange.status < 300) problems.push(...requestProblems(label, operation, exchange));
    return { operation: operation.key, problems };
  }

  function responseProblems(label: string, documented: Json, exchange: Exchange): string[] {
    const content = documented.content as Json | undefined;
    const body = exchange.responseBody;
    if (!content) return body && exchange.method !== 'HEAD' ? [`${label}: a body the document does not describe`] : [];
    const type = exchange.responseContentType?.split(';')[0]?.trim().toLowerCase();
    const media = type ? content[type] : undefined;
    if (!media)
      return [`${label}: answered ${type ?? 'no content type'}, documented ${Object.keys(content).join(', ')}`];
    if (body?.kind === 'json' && media.schema) return schemaProblems(`${label}: response`, media.schema, body.value);
    return [];
  }

  function requestProblems(label: string, operation: Operation, exchange: Exchange): string[] {
    const requestBody = resolve(operation.op.requestBody as Json | undefined, 'requestBodies');
    const body = exchange.requestBody;
    if (!requestBody) return body ? [`${label}: accepted a request body ${operation.key} does not document`] : [];
    if (!body) return requestBody.required ? [`${label}: accepted no body where the document requires one`] : [];
    const type = exchange.requestContentType?.split(';')[0]?.trim().toLowerCase();
    const media = type ? requestBody.content[type] : undefined;
    if (!media) return [`${label}: accepted ${type}, documented ${Object.keys(requestBody.content).join(', ')}`];
    if (body.kind === 'json') return schemaProblems(`${label}: request`, media.schema, body.value);
    if (body.kind === 'multipart') {
      const properties = Object.keys(media.schema?.properties ?? {});
      const missing = ((media.schema?.required ?? []) as string[]).filter((f) => !body.fields.includes(f));
      const unknown = body.fields.filter((f) => !properties.includes(f));
      return [
        ...missing.map((f) => `${label}: multipart without ${f}`),
        ...unknown.map((f) => `${label}: undocumented part ${f}`),
      ];
    }
    return [];
  }

  return { check, operations: operations.map((o) => o.key) };
}
