import { servicePrefix } from '../prefix.ts';
import { render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './docs.css';

// A small offline reader for the OpenAPI 3.1 document: no CDN, no third-party renderer, the same build as the console.
// biome-ignore lint/suspicious/noExplicitAny: the reader walks an arbitrary JSON document (the OpenAPI file) whose shape it checks field by field at run time.
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function Docs() {
  const [doc, setDoc] = useState<Json>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const url =
      document.querySelector<HTMLMetaElement>('meta[name="openapi-url"]')?.content ?? `${servicePrefix()}/openapi.json`;
    fetch(url, { cache: 'no-cache' })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${url} answered ${r.status}`))))
      .then(setDoc, (e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    if (doc) {
      performance.mark('docs:rendered');
      const target = window.location.hash
        ? document.getElementById(decodeURIComponent(window.location.hash.slice(1)))
        : null;
      target?.scrollIntoView();
    }
  }, [doc]);
  if (error) return <p role="alert">The API document could not be loaded: {error}</p>;
  if (!doc) return <p role="status">Loading the API reference…</p>;

  const operations: { tag: string; method: string; path: string; op: Json }[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS)
      if (item[method]) operations.push({ tag: item[method].tags?.[0] ?? 'Other', method, path, op: item[method] });
  }
  const tags: Json[] = [...(doc.tags ?? [])];
  for (const o of operations) if (!tags.some((t) => t.name === o.tag)) tags.push({ name: o.tag });
  const schemas = doc.components?.schemas ?? {};

  return (
    <div class="layout">
      <nav class="side" aria-label="Operations">
        <p class="title">{doc.info?.title}</p>
        <p class="muted small">
          OpenAPI {doc.openapi} · v{doc.info?.version} · <a href={`${servicePrefix()}/openapi.json`}>openapi.json</a>
        </p>
        {tags.map((t) => (
          <div key={t.name}>
            <p class="side-tag">{t.name}</p>
            <ul>
              {operations
                .filter((o) => o.tag === t.name)
                .map((o) => (
                  <li key={o.op.operationId}>
                    <a href={`#${o.op.operationId}`}>
                      <span class={`method m-${o.method}`}>{o.method.toUpperCase()}</span>{' '}
                      {o.path.replace('/admin/v1', '')}
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
        <p class="side-tag">
          <a href="#schemas">Schemas</a>
        </p>
      </nav>
      <main>
        <h1>{doc.info?.title}</h1>
        <Markdown text={doc.info?.description ?? ''} />
        {tags.map((t) => (
          <section key={t.name} aria-labelledby={`tag-${t.name}`}>
            <h2 id={`tag-${t.name}`}>{t.name}</h2>
            {t.description ? <Markdown text={t.description} /> : null}
            {operations
              .filter((o) => o.tag === t.name)
              .map((o) => (
                <Operation key={o.op.operationId} {...o} doc={doc} />
              ))}
          </section>
        ))}
        <section aria-labelledby="schemas">
          <h2 id="schemas">Schemas</h2>
          {Object.entries<Json>(schemas).map(([name, schema]) => (
            <article key={name} id={`schema-${name}`} class="op">
              <h3>{name}</h3>
              {schema.description ? <Markdown text={schema.description} /> : null}
              <Schema schema={schema} doc={doc} depth={0} />
            </article>
          ))}
        </section>
      </main>
    </div>
  );
}

function Operation({ method, path, op, doc }: { method: string; path: string; op: Json; doc: Json }) {
  const security = (op.security ?? []).flatMap((s: Json) => Object.keys(s));
  const requestBody = op.requestBody ? component(op.requestBody, doc) : undefined;
  return (
    <article class="op" id={op.operationId} aria-labelledby={`${op.operationId}-h`}>
      <h3 id={`${op.operationId}-h`}>
        <span class={`method m-${method}`}>{op['x-any-method'] ? 'ANY' : method.toUpperCase()}</span>{' '}
        <code class="path">{path}</code>
      </h3>
      <p class="summary">
        {op.summary}
        {op.deprecated ? <span class="req"> deprecated</span> : null}
        {op['x-internal'] ? <span class="muted"> (internal: for operators, not in the SDK)</span> : null}
      </p>
      {op.description ? <Markdown text={op.description} /> : null}
      <p class="small">
        <strong>Auth: </strong>
        {security.length ? security.map((s: string) => <code key={s}>{s}</code>) : 'none'}
        {security.length ? (
          <span class="muted">
            {' '}
            — <Markdown text={doc.components?.securitySchemes?.[security[0]]?.description ?? ''} inline />
          </span>
        ) : null}
      </p>
      {op.parameters?.length ? (
        <>
          <h4>Parameters</h4>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">In</th>
                <th scope="col">Schema</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {op.parameters.map((p: Json) => (
                <tr key={p.in + p.name}>
                  <td>
                    <code>{p.name}</code>
                    {p.required ? <span class="req"> required</span> : null}
                  </td>
                  <td>{p.in}</td>
                  <td>
                    <TypeLabel schema={p.schema} doc={doc} />
                  </td>
                  <td>{p.description ? <Markdown text={p.description} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {requestBody ? (
        <>
          <h4>Request body</h4>
          {requestBody.description ? <Markdown text={requestBody.description} /> : null}
          {Object.entries<Json>(requestBody.content ?? {}).map(([type, media]) => (
            <div key={type}>
              <p class="small">
                <code>{type}</code>
                {media.schema?.['x-schema-source'] ? (
                  <span class="muted"> ({media.schema['x-schema-source']})</span>
                ) : null}
              </p>
              <Schema schema={media.schema} doc={doc} depth={0} />
            </div>
          ))}
        </>
      ) : null}
      <h4>Responses</h4>
      <ul class="responses">
        {Object.entries<Json>(op.responses ?? {})
          .map(([status, answer]) => ({ status, r: component(answer, doc) }))
          .map(({ status, r }) => (
            <li key={status}>
              <span class={`status s-${status[0]}`}>{status}</span>
              {r['x-error-codes'] ? (
                <ul class="codes">
                  {r['x-error-codes'].map((code: string) => (
                    <li key={code}>
                      <code>{code}</code>{' '}
                      <span class="muted">{doc.components?.schemas?.ErrorCode?.['x-enum-descriptions']?.[code]}</span>
                    </li>
                  ))}
                </ul>
              ) : (
                <>
                  {' '}
                  <Markdown text={r.description ?? ''} inline />
                  {r.content?.['application/json']?.schema ? (
                    <Schema schema={r.content['application/json'].schema} doc={doc} depth={0} />
                  ) : null}
                </>
              )}
            </li>
          ))}
      </ul>
      {op['x-codeSamples']?.[0] ? (
        <>
          <h4>Example</h4>
          <pre>
            <code>{op['x-codeSamples'][0].source}</code>
          </pre>
        </>
      ) : null}
    </article>
  );
}

function refName(ref: string) {
  return ref.split('/').pop()!;
}

/** A shared answer or a named request body (`$ref` into `components`), as the operation uses it. */
function component(node: Json, doc: Json): Json {
  if (!node?.$ref) return node;
  const [, , kind, name] = String(node.$ref).split('/');
  return doc.components?.[kind!]?.[name!] ?? {};
}

function resolve(schema: Json, doc: Json): Json {
  return schema?.$ref ? (doc.components?.schemas?.[refName(schema.$ref)] ?? {}) : schema;
}

function TypeLabel({ schema, doc }: { schema: Json | undefined; doc: Json }): ComponentChildren {
  if (!schema) return 'any';
  if (schema.$ref) return <a href={`#schema-${refName(schema.$ref)}`}>{refName(schema.$ref)}</a>;
  if (schema.const !== undefined) return <code>{JSON.stringify(schema.const)}</code>;
  if (schema.enum) return <span>{schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ')}</span>;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants)
    return (
      <span>
        {variants.map((v: Json, i: number) => (
          <span key={i}>
            {i ? ' | ' : ''}
            <TypeLabel schema={v} doc={doc} />
          </span>
        ))}
      </span>
    );
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (type === 'array')
    return (
      <span>
        array of <TypeLabel schema={schema.items} doc={doc} />
      </span>
    );
  return (
    <span>
      {type ?? 'any'}
      {schema.format ? ` (${schema.format})` : ''}
    </span>
  );
}

function constraints(s: Json): string {
  const parts: string[] = [];
  if (s.minLength !== undefined) parts.push(`≥ ${s.minLength} chars`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength} chars`);
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined) parts.push(`≥ ${s.minItems} items`);
  if (s.maxItems !== undefined) parts.push(`≤ ${s.maxItems} items`);
  if (s.pattern) parts.push(`matches ${s.pattern}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(', ');
}

function Schema({ schema, doc, depth }: { schema: Json | undefined; doc: Json; depth: number }): ComponentChildren {
  if (!schema) return null;
  if (schema.$ref) {
    const name = refName(schema.$ref);
    if (depth > 3) return <a href={`#schema-${name}`}>{name}</a>;
    return (
      <details class="schema" open={depth === 0}>
        <summary>
          <a href={`#schema-${name}`}>{name}</a>
        </summary>
        <Schema schema={resolve(schema, doc)} doc={doc} depth={depth + 1} />
      </details>
    );
  }
  if (schema.allOf)
    return (
      <>
        {schema.allOf.map((s: Json, i: number) => (
          <Schema key={i} schema={s} doc={doc} depth={depth} />
        ))}
      </>
    );
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants && !schema.properties) {
    return (
      <div class="variants">
        <p class="small muted">One of:</p>
        <ol>
          {variants.map((v: Json, i: number) => (
            <li key={i}>
              {v.title ? <strong>{v.title} </strong> : null}
              {v.properties || v.$ref || v.allOf ? (
                <Schema schema={v} doc={doc} depth={depth + 1} />
              ) : (
                <TypeLabel schema={v} doc={doc} />
              )}
            </li>
          ))}
        </ol>
      </div>
    );
  }
  if (schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    return (
      <table class="props">
        <tbody>
          {Object.entries<Json>(schema.properties).map(([name, prop]) => {
            const inner = prop.type === 'array' ? prop.items : prop;
            const nested =
              inner &&
              !inner.$ref &&
              (inner.properties || (inner.oneOf ?? inner.anyOf)?.some((v: Json) => v.properties));
            return (
              <tr key={name}>
                <td>
                  <code>{name}</code>
                  {required.has(name) ? <span class="req"> required</span> : null}
                </td>
                <td>
                  <TypeLabel schema={prop} doc={doc} />
                  {constraints(prop) ? <div class="small muted">{constraints(prop)}</div> : null}
                  {prop.description ? <Markdown text={prop.description} /> : null}
                  {nested && depth < 4 ? <Schema schema={inner} doc={doc} depth={depth + 1} /> : null}
                </td>
              </tr>
            );
          })}
          {schema.additionalProperties === false ? (
            <tr>
              <td colSpan={2} class="small muted">
                Other fields are rejected.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    );
  }
  return (
    <p class="small">
      <TypeLabel schema={schema} doc={doc} /> {constraints(schema)}
    </p>
  );
}

/** Just enough Markdown for the document's texts: paragraphs and `code`. */
function Markdown({ text, inline }: { text: string; inline?: boolean }) {
  const render = (s: string): ComponentChildren[] =>
    s
      .split(/(`[^`]+`)/)
      .map((part, i) => (part.startsWith('`') && part.endsWith('`') ? <code key={i}>{part.slice(1, -1)}</code> : part));
  if (inline) return <span>{render(text)}</span>;
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .filter(Boolean)
        .map((p, i) => (
          <p key={i}>{render(p)}</p>
        ))}
    </>
  );
}

render(<Docs />, document.getElementById('docs')!);
