import { useState } from 'preact/hooks';
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
