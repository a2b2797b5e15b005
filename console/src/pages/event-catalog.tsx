import { loadEventCatalog } from '../catalog.ts';
import { ErrorNotice, Loading, useLoad } from '../ui.tsx';

/** Every event type a webhook receives: what it means, its JSON Schema (envelope + `data`) and an example body. */
export function EventCatalog() {
  const catalog = useLoad(loadEventCatalog, []);
  return (
    <section>
      <h1>Event catalog</h1>
      <p class="muted">
        What webhooks receive: one <code>POST</code> per event, signed with the Standard Webhooks headers. The same
        schemas are in <a href="/openapi.json">openapi.json</a> under <code>webhooks</code>.
      </p>
      <ErrorNotice error={catalog.error} />
      {!catalog.data && !catalog.error ? <Loading what="the event catalog" /> : null}
      {catalog.data?.map((event) => (
        <article key={event.type} class="card catalog-event" id={`event-${event.type}`} data-event-type={event.type}>
          <h2>
            <code>{event.type}</code>
          </h2>
          <p>{event.description}</p>
          <details>
            <summary>Example payload</summary>
            <pre class="code">{JSON.stringify(event.example, null, 2)}</pre>
          </details>
          <details>
            <summary>Schema</summary>
            <pre class="code">{JSON.stringify(event.schema, null, 2)}</pre>
          </details>
        </article>
      ))}
    </section>
  );
}
