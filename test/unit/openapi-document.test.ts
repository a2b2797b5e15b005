import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/contract/routes.ts';
import { adminRoutes } from '#functions/admin/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { REQUEST_EXAMPLES } from '#shared/openapi/examples.ts';
import { SCHEMA_EXAMPLES } from '#shared/openapi/schema-examples.ts';

/**
 * The document as client generators and readers see it: names, tags, security, servers, examples that
 * match their schemas, request shapes every generator's default output gets right, and the SDK surface. The
 * linters (test/unit/openapi-lint.test.ts) and the generated client (sdk/, test/e2e/sdk.test.ts) check the rest.
 */
type Json = Record<string, any>;

const full = buildOpenApiDocument({ adminRoutes, publicRoutes: routes }).document as Json;
const sdk = buildOpenApiDocument({ adminRoutes, publicRoutes: routes, audience: 'sdk' }).document as Json;

const operationsOf = (doc: Json) =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );

function validator(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  // Compiling is most of the cost, and many examples share a schema (a `$ref` to the same component, the same error
  // answer under every operation): each distinct schema is compiled once, every example still checked against it.
  // The components are one schema of their own that every compiled schema refers into, so each component is compiled
  // once, not again inside every schema that reaches it.
  ajv.addSchema({ $id: 'document', components: doc.components });
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  return (schema: Json, value: unknown): string[] => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"document#/components/')));
      compiled.set(key, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}

const resolve = (doc: Json, node: Json, kind: 'requestBodies' | 'responses') =>
  node.$ref ? doc.components[kind][node.$ref.split('/').pop()] : node;

describe('names, tags, security and servers', () => {
  it('every operationId is stable-looking: unique, short, verb-first camelCase', () => {
    const ids = [
      ...operationsOf(full).map((o) => o.op.operationId),
      ...Object.values<Json>(full.webhooks).map((w) => w.post.operationId),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(
        /^(create|list|get|update|delete|revoke|grant|add|simulate|report|rotate|send|retry|recover|upload|search|extract|verify|receive|legacy|message|contact|webhook)[A-Z][A-Za-z]*$/,
      );
      expect(id.length, id).toBeLessThanOrEqual(28);
    }
    // The names customers will see in the SDK.
    const byPath = Object.fromEntries(operationsOf(full).map((o) => [o.key, o.op.operationId]));
    expect(byPath['POST /admin/v1/projects']).toBe('createProject');
    expect(byPath['POST /api/integration/generic']).toBe('sendMessage');
    expect(byPath['POST /api/v1/ai/chat/completions']).toBe('createChatCompletion');
    expect(byPath['POST /api/v1/ai/completion']).toBe('createCompletion');
    expect(byPath['GET /admin/v1/projects/{projectId}/integrations/{integrationId}/deliveries']).toBe('listDeliveries');
  });

  it('one declared product tag per operation, a description and code samples on every one', () => {
    const declared = new Set(full.tags.map((t: Json) => t.name));
    for (const { key, op } of operationsOf(full)) {
      expect(op.tags, key).toHaveLength(1);
      expect(declared, key).toContain(op.tags[0]);
      expect(op.description?.length, key).toBeGreaterThan(20);
      expect(op['x-codeSamples']?.[0]?.source, key).toContain('curl');
    }
    const grouped = full['x-tagGroups'].flatMap((g: Json) => g.tags);
    expect(new Set(grouped)).toEqual(declared);
  });

  it('servers: the local base URL and the deployed one with its variables', () => {
    expect(full.servers[0].url).toBe('http://127.0.0.1:3000');
    expect(full.servers[1].url).toContain('{apiId}');
    expect(Object.keys(full.servers[1].variables)).toEqual(['apiId', 'region']);
    const deployed = buildOpenApiDocument({ adminRoutes, publicRoutes: routes, serverUrl: 'https://api.acme.io' });
    expect((deployed.document as Json).servers[0].url).toBe('https://api.acme.io');
  });

  it('three credentials told apart by bearerFormat, named per operation', () => {
    const schemes = full.components.securitySchemes;
    expect([schemes.adminKey.bearerFormat, schemes.apiToken.bearerFormat, schemes.customToken.bearerFormat]).toEqual([
      'sba_…',
      'sbk_…',
      'sbc_…',
    ]);
    for (const { key, path, op } of operationsOf(full)) {
      const names = op.security.flatMap((s: Json) => Object.keys(s));
      for (const name of names) expect(schemes, key).toHaveProperty(name);
      if (path.startsWith('/admin/v1/')) expect(names, key).toEqual(['adminKey']);
      if (path.startsWith('/api/v1/ai/')) expect(names, key).toEqual(['apiToken']);
      if (path.startsWith('/inbound/')) expect(op.security, key).toEqual([]);
    }
    for (const webhook of Object.values<Json>(full.webhooks))
      expect(webhook.post.security).toEqual([{}, { webhookBearerToken: [] }]);
  });
});

describe('the SDK surface', () => {
  it("leaves out the provider callbacks, the retired route and the console's own calls, flagged x-internal", () => {
    const internal = operationsOf(full).filter((o) => o.op['x-internal']);
    expect(internal.map((o) => o.op.operationId).sort()).toEqual([
      'getApiReference',
      'getCaller',
      'getConsole',
      'getOpenApiDocument',
      'getPortalPage',
      'legacySend',
      'receiveTwilioCallback',
      'receiveWhatsAppWebhook',
      'verifyPortalCode',
      'verifyWhatsAppSubscription',
    ]);
    expect(internal.find((o) => o.op.operationId === 'legacySend')!.op.deprecated).toBe(true);
    const sdkIds = operationsOf(sdk).map((o) => o.op.operationId);
    expect(sdkIds).toHaveLength(operationsOf(full).length - internal.length);
    for (const { op } of internal) expect(sdkIds).not.toContain(op.operationId);
    expect(sdk.tags.map((t: Json) => t.name)).not.toContain('Inbound');
    expect(JSON.stringify(sdk)).not.toContain('"x-internal"');
    expect(JSON.stringify(sdk)).not.toContain('"x-sdk"');
  });

  it('keeps no component nothing refers to', () => {
    const text = JSON.stringify({ paths: sdk.paths, webhooks: sdk.webhooks, components: sdk.components });
    for (const kind of ['schemas', 'responses', 'requestBodies', 'headers'])
      for (const name of Object.keys(sdk.components[kind]))
        expect(text.includes(`"#/components/${kind}/${name}"`), `${kind}.${name}`).toBe(true);
  });
});

describe('request shapes every generator gets right with its default options', () => {
  /** Every component schema a request body reaches, through `$ref`s. */
  function requestComponents(doc: Json): Set<string> {
    const found = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(walk);
        return;
      }
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
          const name = v.split('/').pop()!;
          if (!found.has(name)) {
            found.add(name);
            walk(doc.components.schemas[name]);
          }
        } else walk(v);
      }
    };
    for (const { op } of operationsOf(doc)) if (op.requestBody) walk(resolve(doc, op.requestBody, 'requestBodies'));
    return found;
  }

  it('no defaulted property in a request schema under components.schemas (openapi-typescript would require it)', () => {
    for (const doc of [sdk]) {
      for (const name of requestComponents(doc)) {
        const properties = doc.components.schemas[name].properties ?? {};
        for (const [property, schema] of Object.entries<Json>(properties))
          expect(schema.default, `${name}.${property}`).toBeUndefined();
      }
    }
    // The README's calls: defaulted fields stay optional, in `components.requestBodies`.
    const completion = sdk.components.requestBodies.CompletionRequest.content['application/json'].schema;
    expect(completion.required).toEqual(['prompt']);
    expect(completion.properties.timeoutMs.default).toBe(30_000);
    expect(sdk.components.requestBodies.SearchRequest.content['application/json'].schema.required).toEqual([
      'botId',
      'query',
    ]);
  });

  it('raw uploads and the PDF part are bytes with a media type, never a JSON string', () => {
    const upload = sdk.paths['/admin/v1/projects/{projectId}/bots/{botId}/knowledge/{fileName}'].put.requestBody;
    for (const [type, media] of Object.entries<Json>(upload.content))
      expect(media.schema).toEqual({ contentMediaType: type });
    const extract = sdk.paths['/api/v1/ai/extract'].post.requestBody.content;
    expect(Object.keys(extract)).toEqual(['multipart/form-data']);
    expect(extract['multipart/form-data'].schema.properties.file).toMatchObject({
      contentMediaType: 'application/pdf',
    });
    expect(extract['multipart/form-data'].schema.properties.file.type).toBeUndefined();
    // The full document keeps the JSON `fileKey` form for the reference.
    expect(Object.keys(full.paths['/api/v1/ai/extract'].post.requestBody.content)).toEqual([
      'multipart/form-data',
      'application/json',
    ]);
  });
});

describe('examples, each checked against its schema', () => {
  for (const [name, doc] of [
    ['full', full],
    ['sdk', sdk],
  ] as const) {
    it(`${name}: every parameter, request body and answer of every operation has one, and it is valid`, () => {
      const check = validator(doc);
      const problems: string[] = [];
      for (const { key, op } of operationsOf(doc)) {
        for (const p of op.parameters ?? []) {
          if (p.example === undefined) problems.push(`${key}: parameter ${p.name} has no example`);
          else problems.push(...check(p.schema, p.example).map((e) => `${key}: parameter ${p.name} ${e}`));
        }
        if (op.requestBody) {
          const body = resolve(doc, op.requestBody, 'requestBodies');
          const media = Object.entries<Json>(body.content);
          if (!media.some(([, m]) => m.example !== undefined)) problems.push(`${key}: no request example`);
          for (const [type, m] of media)
            if (m.example !== undefined && type !== 'multipart/form-data' && m.schema.type)
              problems.push(...check(m.schema, m.example).map((e) => `${key}: request ${type} ${e}`));
        }
        for (const [status, answer] of Object.entries<Json>(op.responses))
          for (const [type, m] of Object.entries<Json>(resolve(doc, answer, 'responses').content ?? {})) {
            if (type === 'text/event-stream') continue;
            if (m.example === undefined) problems.push(`${key}: ${status} ${type} has no example`);
            else problems.push(...check(m.schema, m.example).map((e) => `${key}: ${status} ${type} ${e}`));
          }
      }
      for (const [name, schema] of Object.entries<Json>(doc.components.schemas))
        for (const example of schema.examples ?? [])
          problems.push(...check(schema, example).map((e) => `schema ${name}: ${e}`));
      for (const [type, item] of Object.entries<Json>(doc.webhooks)) {
        const media = item.post.requestBody.content['application/json'];
        problems.push(...check(media.schema, media.example).map((e) => `webhook ${type}: ${e}`));
        for (const h of item.post.parameters) if (h.example === undefined) problems.push(`webhook ${type}: ${h.name}`);
      }
      expect(problems).toEqual([]);
      // A few seconds of CPU (every distinct schema compiled), so a loaded CI machine can take several times that.
    }, 120_000);
  }

  it('every example written in examples.ts is used', () => {
    for (const name of Object.keys(SCHEMA_EXAMPLES)) expect(full.components.schemas, name).toHaveProperty(name);
    const ids = new Set(operationsOf(full).map((o) => o.op.operationId));
    for (const key of Object.keys(REQUEST_EXAMPLES)) expect(ids, key).toContain(key.split(' ')[0]);
  });

  it('the JSON request examples are what the handlers accept (the schemas are the handlers’ own)', () => {
    const createProject = full.paths['/admin/v1/projects'].post.requestBody.content['application/json'];
    expect(createProject.example).toEqual(REQUEST_EXAMPLES.createProject);
    expect(validator(full)(createProject.schema, { ...createProject.example, extra: 1 })).not.toEqual([]);
  });
});

describe('pagination in the schema', () => {
  it('every list answer is a page, and every page-answering operation is marked and takes limit and cursor', () => {
    for (const { key, op } of operationsOf(full)) {
      const ok = op.responses['200'];
      const schema = ok?.content?.['application/json']?.schema;
      const component = schema?.$ref ? full.components.schemas[schema.$ref.split('/').pop()] : schema;
      const isList = component?.properties?.items?.type === 'array';
      // The knowledge listing gets the one page shape with its re-implementation; the OpenAI model list
      // keeps OpenAI's shape (`{ object: 'list', data }`).
      if (!isList || (op.operationId === 'listKnowledgeFiles' && !op['x-pagination'])) continue;
      expect(op['x-pagination'], key).toBeDefined();
      expect(component.properties.nextCursor, key).toBeDefined();
      expect(component.required, key).toEqual(['items']);
    }
  });
});
