import { useState } from 'preact/hooks';
import { filterProblems, matchesFilter, type WebhookFilter } from '../../../shared/contract/webhook-filter.ts';
import type { Api } from '../api.ts';
import type { Integration } from '../types.ts';
import { ErrorNotice, StatusMessage, useAction } from '../ui.tsx';
import { RateLimitField } from './new-integration.tsx';

/** Changes a webhook's `rateLimitPerSecond` (blank removes it). */
export function RateLimitEditor({
  api,
  path,
  webhook,
  onSaved,
}: {
  api: Api;
  path: string;
  webhook: Integration;
  onSaved: () => void;
}) {
  const [value, setValue] = useState(webhook.rateLimitPerSecond === null ? '' : String(webhook.rateLimitPerSecond));
  const save = useAction();
  const [status, setStatus] = useState<string>();
  return (
    <form
      class="card form"
      aria-label="Change the rate limit"
      onSubmit={async (e) => {
        e.preventDefault();
        const rateLimitPerSecond = value.trim() ? Number(value) : null;
        const saved = await save.run(() => api.patch<Integration>(path, { rateLimitPerSecond }));
        if (saved) {
          setStatus(
            saved.rateLimitPerSecond === null
              ? 'Rate limit removed.'
              : `Rate limit set to ${saved.rateLimitPerSecond}/s.`,
          );
          onSaved();
        }
      }}
    >
      <RateLimitField value={value} onInput={setValue} />
      <ErrorNotice error={save.error} />
      <StatusMessage message={status} />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          Save rate limit
        </button>
      </div>
    </form>
  );
}

/** A `datetime-local` value (the browser's zone) as ISO 8601 with its offset, which the API takes. */
function toInstant(local: string): string | undefined {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? local : at.toISOString();
}

/** "Recover failed deliveries": every failed delivery whose event time is in [since, until) is retried once more. */
export function RecoverFailed({ api, path, onRecovered }: { api: Api; path: string; onRecovered: () => void }) {
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const recover = useAction();
  const [status, setStatus] = useState<string>();
  return (
    <details class="card">
      <summary>Recover failed deliveries</summary>
      <form
        class="form"
        aria-label="Recover failed deliveries"
        onSubmit={async (e) => {
          e.preventDefault();
          const body = { since: toInstant(since), ...(until ? { until: toInstant(until) } : {}) };
          const r = await recover.run(() =>
            api.post<{ recovered: number; continued?: boolean }>(`${path}/recover`, body),
          );
          if (r) {
            setStatus(
              `${r.recovered} failed ${r.recovered === 1 ? 'delivery' : 'deliveries'} queued again${r.continued ? '; more are being queued in the background' : ''}.`,
            );
            setTimeout(onRecovered, 1500);
          }
        }}
      >
        <p class="hint">Retries every failed delivery of events from this window (at most 30 days back).</p>
        <label for="recover-since">Since</label>
        <input
          id="recover-since"
          type="datetime-local"
          required
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
        <label for="recover-until">
          Until <span class="muted">(optional, not included)</span>
        </label>
        <input
          id="recover-until"
          type="datetime-local"
          value={until}
          onInput={(e) => setUntil(e.currentTarget.value)}
        />
        <ErrorNotice error={recover.error} />
        <StatusMessage message={status} />
        <div class="actions">
          <button type="submit" disabled={recover.busy}>
            Recover
          </button>
        </div>
      </form>
    </details>
  );
}

/** A sample `message.received` envelope with the fields filters usually name, to try a filter on. */
const SAMPLE_EVENT = {
  id: 'evt_01hq3x9k2m7c4v8b6n5s',
  type: 'message.received',
  timestamp: '2026-11-21T10:00:00.000Z',
  projectId: 'prj_01hq3x9k2m7c4v8b6n5s',
  companyId: 1042,
  channel: { id: 'ch_01hq3x9k2m7c4v8b6n5s', type: 'whatsapp', address: '+5511999990000' },
  data: {
    messageId: 'msg_01hq3x9k2m7c4v8b6n5s',
    conversationId: 'conv_42',
    from: '+5511988887777',
    text: 'Olá! Where is my order?',
    media: [{ contentType: 'image/jpeg' }],
  },
};

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Shows and changes a webhook's `filter`, and tries it on a sample event with the rules the fan-out
 * applies (`shared/contract/webhook-filter.ts`, bundled as is): whether the event would be delivered, or what is
 * wrong with the filter, before it is saved.
 */
export function FilterEditor({
  api,
  path,
  webhook,
  onSaved,
}: {
  api: Api;
  path: string;
  webhook: Integration;
  onSaved: () => void;
}) {
  const [text, setText] = useState(webhook.filter ? pretty(webhook.filter) : '');
  const [sample, setSample] = useState(pretty(SAMPLE_EVENT));
  const [tried, setTried] = useState<{ tone: 'ok' | 'bad'; message: string }>();
  const save = useAction();
  const [status, setStatus] = useState<string>();

  const parse = (value: string, what: string): { ok: true; value: unknown } | { ok: false; message: string } => {
    try {
      return { ok: true, value: JSON.parse(value) };
    } catch (error) {
      return { ok: false, message: `The ${what} is not JSON: ${(error as Error).message}` };
    }
  };

  const tryIt = () => {
    if (!text.trim())
      return setTried({ tone: 'ok', message: 'No filter: every event of the chosen types is delivered.' });
    const filter = parse(text, 'filter');
    if (!filter.ok) return setTried({ tone: 'bad', message: filter.message });
    const problems = filterProblems(filter.value);
    if (problems.length)
      return setTried({
        tone: 'bad',
        message: problems.map((p) => `${['filter', ...p.path].join('.')}: ${p.message}`).join('; '),
      });
    const event = parse(sample, 'sample event');
    if (!event.ok) return setTried({ tone: 'bad', message: event.message });
    setTried(
      matchesFilter(filter.value as WebhookFilter, event.value)
        ? { tone: 'ok', message: 'Matches: this event would be delivered.' }
        : { tone: 'bad', message: 'Does not match: this event would not be delivered.' },
    );
  };

  return (
    <form
      class="card form"
      aria-label="Filter"
      onSubmit={async (e) => {
        e.preventDefault();
        let filter: unknown = null;
        if (text.trim()) {
          const parsed = parse(text, 'filter');
          if (!parsed.ok) return setTried({ tone: 'bad', message: parsed.message });
          filter = parsed.value;
        }
        const saved = await save.run(() => api.patch<Integration>(path, { filter }));
        if (saved) {
          setStatus(saved.filter ? 'Filter saved.' : 'Filter removed: every event of the chosen types is delivered.');
          onSaved();
        }
      }}
    >
      <h2>Filter</h2>
      <p class="muted small">
        Only events matching every condition are delivered: <code>{'{ "all": [ { "field", "op", "value" } ] }'}</code>,
        fields are dotted paths in the event (<code>channel.type</code>, <code>data.from</code>), ops <code>eq</code>,{' '}
        <code>in</code>, <code>prefix</code>, <code>exists</code>. Blank: no filter.
      </p>
      <label for="webhook-filter">Filter (JSON)</label>
      <textarea
        id="webhook-filter"
        rows={6}
        class="mono"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <label for="webhook-filter-sample">Sample event</label>
      <textarea
        id="webhook-filter-sample"
        rows={10}
        class="mono"
        value={sample}
        onInput={(e) => setSample(e.currentTarget.value)}
      />
      {tried ? (
        <p role="status" class={tried.tone === 'ok' ? 'ok' : 'error'}>
          {tried.message}
        </p>
      ) : null}
      <ErrorNotice error={save.error} />
      <StatusMessage message={status} />
      <div class="actions">
        <button type="button" onClick={tryIt}>
          Try on the sample
        </button>
        <button type="submit" disabled={save.busy}>
          Save filter
        </button>
      </div>
    </form>
  );
}
