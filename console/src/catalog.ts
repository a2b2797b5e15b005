import { servicePrefix } from './prefix.ts';
import { useEffect, useState } from 'preact/hooks';
import { WEBHOOK_EVENT_TYPES } from '../../shared/contract/event-types.ts';

/** One webhook event type as `/openapi.json`'s `webhooks` section describes it (shared/webhooks/event-catalog.ts). */
export interface CatalogEvent {
  type: string;
  description: string;
  schema: unknown;
  example: unknown;
}

interface OpenApiWebhooks {
  webhooks?: Record<
    string,
    {
      post?: {
        description?: string;
        requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown }> };
      };
    }
  >;
}

let loading: Promise<CatalogEvent[]> | undefined;

/** The event catalog, read once per page load from the same OpenAPI document the API reference shows. */
export function loadEventCatalog(): Promise<CatalogEvent[]> {
  loading ??= fetch(`${servicePrefix()}/openapi.json`)
    .then((r) => {
      if (!r.ok) throw new Error(`The event catalog could not be loaded (HTTP ${r.status}).`);
      return r.json() as Promise<OpenApiWebhooks>;
    })
    .then((doc) =>
      Object.entries(doc.webhooks ?? {}).map(([type, entry]) => {
        const media = entry.post?.requestBody?.content?.['application/json'];
        return { type, description: entry.post?.description ?? '', schema: media?.schema, example: media?.example };
      }),
    )
    .catch((error) => {
      loading = undefined;
      throw error;
    });
  return loading;
}

/**
 * The event types a webhook can subscribe to, from the catalog; the built-in list until it arrives (or when it
 * cannot be read), so the form always works.
 */
export function useEventTypes(): readonly string[] {
  const [types, setTypes] = useState<readonly string[]>(WEBHOOK_EVENT_TYPES);
  useEffect(() => {
    let live = true;
    loadEventCatalog()
      .then((events) => live && events.length && setTypes(events.map((e) => e.type)))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  return types;
}
