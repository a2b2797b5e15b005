import { REQUEST_EXAMPLES } from './examples.ts';
import { exampleOf } from './example-of.ts';
import { type Json, SCHEMA_REF } from './json-schema.ts';

/** Passes over the built document: shared error answers, named request bodies, examples, the SDK's surface. */

/**
 * Error answers repeat across operations (the same status, codes and headers): each distinct one becomes a
 * `components.responses` entry, named by its status and codes, and operations refer to it. Halves the document.
 */
export function shareErrorAnswers(paths: Record<string, Record<string, Json>>, components: Json): void {
  const byKey = new Map<string, string>();
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      for (const [status, answer] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400 || !answer['x-error-codes']) continue;
        const key = JSON.stringify(answer);
        let name = byKey.get(key);
        if (!name) {
          const openAi = answer.content?.['application/json']?.schema?.$ref === `${SCHEMA_REF}OpenAiError`;
          const list = answer['x-error-codes'] as string[];
          // A long set is named by what its codes share (the four API-token failures: `ErrApiToken`).
          const shared = commonPrefix(list).replace(/_+$/, '');
          const codes = list.length > 2 && shared.length >= 4 ? pascal(shared) : list.map(pascal).join('Or');
          const extra = answer.headers?.['Retry-After'] ? 'RetryAfter' : '';
          name = `${openAi ? 'OpenAi' : ''}Error${status}${codes}${extra}`;
          if (components.responses[name]) throw new Error(`Two different error answers named ${name}`);
          components.responses[name] = answer;
          byKey.set(key, name);
        }
        op.responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
}

/**
 * A request body that is one named schema becomes `components.requestBodies.<name>` with the schema inline: a
 * defaulted field of a schema under `components.schemas` is typed required by openapi-typescript's default output
 * (`responseFormat`, `topK`), and optional everywhere under `requestBodies`.
 */
export function nameRequestBodies(paths: Record<string, Record<string, Json>>, components: Json): void {
  const json = JSON.stringify({ paths, schemas: components.schemas });
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      const content = op.requestBody?.content as Json | undefined;
      if (!content || Object.keys(content).length !== 1) continue;
      const [media] = Object.values<Json>(content);
      const ref = media!.schema?.$ref as string | undefined;
      if (!ref?.startsWith(SCHEMA_REF) || Object.keys(media!.schema).length !== 1) continue;
      const name = ref.slice(SCHEMA_REF.length);
      // Only a schema nothing else refers to moves.
      if (json.split(`"${ref}"`).length !== 2) continue;
      media!.schema = components.schemas[name];
      delete components.schemas[name];
      components.requestBodies[name] = op.requestBody;
      op.requestBody = { $ref: `#/components/requestBodies/${name}` };
    }
}

/** Request examples by operation; answer examples composed from the schemas (named ones carry theirs). */
export function addExamples(paths: Record<string, Record<string, Json>>, components: Json): void {
  const resolve = (node: Json, kind: 'requestBodies' | 'responses') =>
    node.$ref ? components[kind][node.$ref.split('/').pop()] : node;
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) {
      if (op.requestBody) {
        const body = resolve(op.requestBody, 'requestBodies');
        const [first, ...others] = Object.entries<Json>(body.content);
        const example = REQUEST_EXAMPLES[op.operationId];
        if (first && example !== undefined && first[1].example === undefined) first[1].example = example;
        for (const [type, media] of others) {
          const other = REQUEST_EXAMPLES[`${op.operationId} ${type}`];
          if (other !== undefined) media.example = other;
        }
      }
      for (const answer of Object.values<Json>(op.responses)) {
        const content = resolve(answer, 'responses').content as Json | undefined;
        for (const [type, media] of Object.entries<Json>(content ?? {})) {
          if (media.example !== undefined || type === 'text/event-stream') continue;
          const example = exampleOf(media.schema, components.schemas);
          if (example !== undefined) media.example = example;
        }
      }
    }
}

/** The SDK surface of a full document: no `x-internal` operation or tag, no `x-sdk: false` media type, no orphan. */
export function sdkSurface(full: Json): Json {
  const doc = structuredClone(full);
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op['x-internal']) {
        delete item[method];
        continue;
      }
      const body = op.requestBody?.$ref ? undefined : op.requestBody;
      for (const [type, media] of Object.entries<Json>(body?.content ?? {}))
        if (media['x-sdk'] === false) delete body.content[type];
      if (body?.content && Object.keys(body.content).length === 1) {
        const [only] = Object.values<Json>(body.content);
        if (only!.description === undefined && body.description === undefined) delete body.description;
      }
    }
    if (!Object.keys(item).length) delete doc.paths[path];
  }
  doc.tags = doc.tags.filter((t: Json) => !t['x-internal']);
  doc['x-tagGroups'] = doc['x-tagGroups']
    .map((g: Json) => ({ ...g, tags: g.tags.filter((t: string) => doc.tags.some((d: Json) => d.name === t)) }))
    .filter((g: Json) => g.tags.length);
  doc.info.description = doc.info.description.replace(
    /\n\nOperations tagged `Inbound`.*$/s,
    "\n\nThe SDK surface: the provider callbacks, the retired route and the console's own operations (`x-internal`) are documented in the full document, `/openapi.json`.",
  );
  pruneComponents(doc);
  return doc;
}

/** Drops the components nothing refers to, directly or through other components (after operations were left out). */
function pruneComponents(doc: Json): void {
  const used = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(collect);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') used.add(v);
      else collect(v);
    }
  };
  collect(doc.paths);
  collect(doc.webhooks);
  for (let before = -1; before !== used.size; ) {
    before = used.size;
    for (const ref of [...used]) {
      const [, , kind, name] = ref.split('/');
      collect(doc.components[kind!]?.[name!]);
    }
  }
  for (const kind of ['schemas', 'responses', 'requestBodies', 'headers'])
    for (const name of Object.keys(doc.components[kind] ?? {}))
      if (!used.has(`#/components/${kind}/${name}`)) delete doc.components[kind][name];
}

function commonPrefix(codes: string[]): string {
  let prefix = codes[0]!;
  for (const code of codes) while (!code.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function pascal(code: string): string {
  return code
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}
