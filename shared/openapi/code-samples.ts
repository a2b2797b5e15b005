// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects, walked by key.
type Json = Record<string, any>;

/** The environment variables the samples read (the README's quickstart sets the same). */
const TOKEN_VARIABLES: Record<string, string> = {
  adminKey: 'SWITCHBOARD_ADMIN_KEY',
  apiToken: 'SWITCHBOARD_API_TOKEN',
  customToken: 'SWITCHBOARD_CUSTOM_TOKEN',
  pollerToken: 'SWITCHBOARD_POLLER_TOKEN',
};

export interface SampleInput {
  method: string;
  /** The full path template: `/admin/v1/projects/{projectId}`. */
  path: string;
  /** The operation so far: its `operationId`, `parameters` (with examples), `requestBody` and `x-internal`. */
  operation: Json;
  security: string;
  /** The request body example (`examples.ts`), if the operation takes a body. */
  example: unknown;
}

/**
 * `x-codeSamples` of an operation (the extension Redocly and other readers show beside it): the request with curl,
 * and, for operations in the SDK, the same call with the official TypeScript client (`sdk/`). Built from the
 * operation's own examples, so each sample is a request the API accepts.
 */
export function codeSamples(input: SampleInput): Json[] {
  const samples = [{ lang: 'Shell', label: 'curl', source: curl(input) }];
  if (!input.operation['x-internal']) samples.push({ lang: 'TypeScript', label: 'SDK', source: sdk(input) });
  return samples;
}

function parameterValues(operation: Json, where: 'path' | 'query'): Record<string, unknown> {
  return Object.fromEntries(
    ((operation.parameters ?? []) as Json[])
      .filter(
        (p) => p.in === where && p.example !== undefined && (where === 'path' || p.required || p.name === 'limit'),
      )
      .map((p) => [p.name, p.example]),
  );
}

function bodyType(operation: Json): string | undefined {
  return Object.keys(operation.requestBody?.content ?? {})[0];
}

function curl({ method, path, operation, security, example }: SampleInput): string {
  const pathValues = parameterValues(operation, 'path');
  const query = new URLSearchParams(
    Object.entries(parameterValues(operation, 'query')).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const url = `$SWITCHBOARD_URL${path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name])))}${query ? `?${query}` : ''}`;
  const lines = [`curl${method === 'GET' ? '' : ` -X ${method}`} "${url}"`];
  const variable = TOKEN_VARIABLES[security];
  if (variable) lines.push(`-H "Authorization: Bearer $${variable}"`);
  const type = bodyType(operation);
  if (type && example !== undefined) {
    if (type === 'application/json')
      lines.push(`-H 'Content-Type: application/json'`, `-d '${JSON.stringify(example)}'`);
    else if (type === 'multipart/form-data')
      lines.push(
        ...Object.entries(example as Json).map(([k, v]) =>
          k === 'file' ? `-F 'file=@invoice.pdf'` : `-F '${k}=${v}'`,
        ),
      );
    else if (type === 'application/x-www-form-urlencoded')
      lines.push(...Object.entries(example as Json).map(([k, v]) => `--data-urlencode '${k}=${v}'`));
    else lines.push(`-H 'Content-Type: text/markdown'`, `--data-binary @${String(pathValues.fileName ?? 'file')}`);
  }
  return lines.join(' \\\n  ');
}

function sdk({ operation, security, example }: SampleInput): string {
  const path = parameterValues(operation, 'path');
  const query = parameterValues(operation, 'query');
  const params: Json = {};
  if (Object.keys(path).length) params.path = path;
  if (Object.keys(query).length) params.query = query;
  const init: string[] = [];
  if (Object.keys(params).length) init.push(`params: ${literal(params)}`);
  const type = bodyType(operation);
  if (type && example !== undefined) {
    if (type === 'application/json') init.push(`body: ${literal(example)}`);
    else if (type === 'multipart/form-data')
      init.push(`body: { file: new Blob([readFileSync('invoice.pdf')], { type: 'application/pdf' }), mode: 'text' }`);
    else init.push(`body: new Blob([${JSON.stringify(example)}], { type: 'text/markdown' })`);
  }
  const credential = security === 'none' ? '' : `, ${security}: process.env.${TOKEN_VARIABLES[security]}`;
  return [
    ...(type === 'multipart/form-data' ? ["import { readFileSync } from 'node:fs';"] : []),
    "import { createSwitchboard } from '@switchboard/sdk';",
    '',
    `const sb = createSwitchboard({ baseUrl: process.env.SWITCHBOARD_URL!${credential} });`,
    `const result = await sb.${operation.operationId}(${init.length ? `{ ${init.join(', ')} }` : ''});`,
  ].join('\n');
}

/** A value as TypeScript source: plain keys unquoted. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}
