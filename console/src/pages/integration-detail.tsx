import { Can, useCan } from '../access.tsx';
import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { Channel, Delivery, DeliveryPage, Integration } from '../types.ts';
import {
  Badge,
  ConfirmButton,
  ErrorNotice,
  formatTime,
  Loading,
  ResponsiveTable,
  SecretOnce,
  StatusMessage,
  useAction,
  useLoad,
} from '../ui.tsx';
import { channelLabel, integrationStatus } from './integrations.tsx';
import { WebhookHealthChart } from './usage-charts.tsx';
import { FilterEditor, RateLimitEditor, RecoverFailed } from './webhook-tools.tsx';

/** One integration: its settings and actions, and for a webhook its delivery log. */
export function IntegrationDetail({
  api,
  projectId,
  integrationId,
}: {
  api: Api;
  projectId: string;
  integrationId: string;
}) {
  const base = `/projects/${enc(projectId)}`;
  const path = `${base}/integrations/${enc(integrationId)}`;
  const data = useLoad(async () => {
    const [integration, channels] = await Promise.all([
      api.get<Integration>(path),
      api.all<Channel>(`${base}/channels`),
    ]);
    return { integration, channels };
  }, [api, path]);
  const action = useAction();
  const [secret, setSecret] = useState<{ kind: 'token' | 'signingSecret'; value: string }>();
  const [status, setStatus] = useState<string>();
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);

  if (data.error && !data.data) {
    return (
      <section>
        <h1>Integration</h1>
        <ErrorNotice error={data.error} />
        <a href={`#${base}/integrations`}>Back to integrations</a>
      </section>
    );
  }
  if (!data.data) return <Loading what="the integration" />;
  const i = data.data.integration;
  const webhook = i.product === 'webhook';

  if (secret) {
    return (
      <section>
        <h1>{secret.kind === 'token' ? 'Token rotated' : 'Signing secret rotated'}</h1>
        <SecretOnce
          title={secret.kind === 'token' ? 'Your new integration token' : 'Your new signing secret'}
          label={secret.kind === 'token' ? 'Custom integration token' : 'Webhook signing secret'}
          value={secret.value}
          onDone={() => setSecret(undefined)}
        >
          <p class="muted">
            {secret.kind === 'token'
              ? 'The previous token stopped working.'
              : 'For the next 24 hours deliveries are signed with both the previous and the new secret, so your receiver can switch without missing events.'}
          </p>
        </SecretOnce>
      </section>
    );
  }

  const setEnabled = async (enabled: boolean) => {
    const updated = await action.run(() => api.patch<Integration>(path, { enabled }));
    if (updated) {
      setStatus(enabled ? 'Webhook enabled.' : 'Webhook disabled.');
      await data.reload();
    }
  };

  return (
    <section>
      <nav aria-label="Breadcrumb" class="muted small">
        <a href={`#${base}/integrations`}>Integrations</a> › {i.integrationId}
      </nav>
      <h1>{webhook ? 'Webhook' : 'Custom integration'}</h1>
      <dl class="facts card">
        <dt>Id</dt>
        <dd class="mono">{i.integrationId}</dd>
        <dt>Status</dt>
        <dd>{integrationStatus(i)}</dd>
        <dt>Scope</dt>
        <dd>{i.scope === 'general' ? 'General (all channels)' : 'Specific channel'}</dd>
        {i.channelId ? (
          <>
            <dt>Channel</dt>
            <dd>{channelLabel(data.data.channels, i.channelId)}</dd>
          </>
        ) : null}
        {webhook ? (
          <>
            <dt>URL</dt>
            <dd class="break">{i.url}</dd>
            <dt>Bearer token</dt>
            <dd>{i.hasBearerToken ? 'Set (hidden)' : 'None'}</dd>
            <dt>Event types</dt>
            <dd>{i.eventTypes?.length ? i.eventTypes.join(', ') : 'All'}</dd>
            <dt>Rate limit</dt>
            <dd>{i.rateLimitPerSecond === null ? 'None' : `${i.rateLimitPerSecond} per second`}</dd>
            <dt>Ordering</dt>
            <dd>{i.ordering === 'conversation' ? 'In order per conversation' : 'None (in parallel)'}</dd>
            <dt>Signature</dt>
            <dd>{i.signature === 'v1a' ? 'v1a (ed25519)' : 'v1 (HMAC-SHA256)'}</dd>
            {i.publicKey ? (
              <>
                <dt>Public key</dt>
                <dd class="mono break">{i.publicKey}</dd>
              </>
            ) : null}
          </>
        ) : (
          <>
            <dt>Token</dt>
            <dd>Hidden (shown once when created or rotated)</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatTime(i.createdAt)}</dd>
      </dl>

      <Can need="developer">
        <fieldset class="actions wrap" aria-label="Integration actions">
          {webhook ? (
            <>
              {i.enabled ? (
                <button type="button" disabled={action.busy} onClick={() => setEnabled(false)}>
                  Disable
                </button>
              ) : (
                <button type="button" disabled={action.busy} onClick={() => setEnabled(true)}>
                  Enable
                </button>
              )}
              <button
                type="button"
                disabled={action.busy}
                onClick={async () => {
                  const sent = await action.run(() => api.post<{ eventId: string }>(`${path}/test`));
                  if (sent) {
                    setStatus(`Test event ${sent.eventId} queued. It appears in the delivery log below.`);
                    // The delivery is made in the background: look again shortly.
                    setTimeout(() => setDeliveriesVersion((v) => v + 1), 1500);
                  }
                }}
              >
                Send test event
              </button>
              <ConfirmButton
                label="Rotate signing secret"
                title="Rotate the signing secret?"
                message="A new secret is generated and shown once. The current one keeps signing deliveries for 24 hours."
                confirmLabel="Rotate secret"
                disabled={action.busy}
                onConfirm={async () => {
                  const r = await action.run(() =>
                    api.post<{ signingSecret?: string; publicKey?: string }>(`${path}/rotate-secret`),
                  );
                  if (r?.signingSecret) setSecret({ kind: 'signingSecret', value: r.signingSecret });
                  else if (r) {
                    setStatus('New signing key: the previous one keeps signing beside it for 24 hours.');
                    await data.reload();
                  }
                }}
              />
            </>
          ) : (
            <ConfirmButton
              label="Rotate token"
              title="Rotate the token?"
              message="A new token is generated and shown once. The current token stops working immediately."
              confirmLabel="Rotate token"
              disabled={action.busy}
              onConfirm={async () => {
                const r = await action.run(() => api.post<{ token: string }>(`${path}/rotate-token`));
                if (r) setSecret({ kind: 'token', value: r.token });
              }}
            />
          )}
          <ConfirmButton
            label="Delete"
            title="Delete this integration?"
            message={webhook ? 'Events stop being delivered to this URL.' : 'Its token stops working immediately.'}
            confirmLabel="Delete integration"
            danger
            disabled={action.busy}
            onConfirm={async () => {
              const ok = await action.run(() => api.del(path).then(() => true));
              if (ok) window.location.hash = `${base}/integrations`;
            }}
          />
        </fieldset>
      </Can>
      <ErrorNotice error={action.error} />
      <StatusMessage message={status} />

      {webhook ? (
        <>
          <WebhookHealthChart
            api={api}
            projectId={projectId}
            integrationId={integrationId}
            version={deliveriesVersion}
          />
          <Can need="developer">
            <RateLimitEditor api={api} path={path} webhook={i} onSaved={() => void data.reload()} />
            <FilterEditor api={api} path={path} webhook={i} onSaved={() => void data.reload()} />
            {i.enabled ? (
              <RecoverFailed api={api} path={path} onRecovered={() => setDeliveriesVersion((v) => v + 1)} />
            ) : null}
          </Can>
          <DeliveryLog api={api} path={path} version={deliveriesVersion} />
        </>
      ) : null}
    </section>
  );
}

function deliveryBadge(d: Delivery) {
  if (d.status === 'succeeded') return <Badge tone="ok">Succeeded</Badge>;
  if (d.status === 'failed') return <Badge tone="bad">Failed</Badge>;
  return <Badge tone="neutral">Pending</Badge>;
}

/** A webhook's deliveries, newest first, every attempt; failed ones can be retried. */
function DeliveryLog({ api, path, version }: { api: Api; path: string; version: number }) {
  const canRetry = useCan('developer');
  const [filter, setFilter] = useState<'' | Delivery['status']>('');
  const [extra, setExtra] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string>();
  const page = useLoad(async () => {
    const r = await api.get<DeliveryPage>(`${path}/deliveries${filter ? `?status=${filter}` : ''}`);
    setExtra([]);
    setCursor(r.nextCursor ?? undefined);
    return r;
  }, [api, path, filter, version]);
  const retry = useAction();
  const [status, setStatus] = useState<string>();
  const items = [...(page.data?.items ?? []), ...extra];

  return (
    <section aria-labelledby="deliveries-title" class="deliveries">
      <div class="row-between">
        <h2 id="deliveries-title">Delivery log</h2>
        <div class="actions">
          <label for="delivery-filter" class="inline">
            Status
          </label>
          <select
            id="delivery-filter"
            value={filter}
            onChange={(e) => setFilter(e.currentTarget.value as typeof filter)}
          >
            <option value="">All</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
          </select>
          <button type="button" onClick={() => page.reload()} disabled={page.loading}>
            Refresh
          </button>
        </div>
      </div>
      <ErrorNotice error={page.error ?? retry.error} />
      <StatusMessage message={status} />
      {!page.data && !page.error ? <Loading what="deliveries" /> : null}
      {page.data && items.length === 0 ? <p class="muted">No deliveries yet. Send a test event to see one.</p> : null}
      {items.length ? (
        <ResponsiveTable label="Deliveries" columns={['Event', 'Status', 'Attempts', null]}>
          {items.map((d) => (
            <tr key={d.deliveryId} data-delivery-id={d.deliveryId}>
              <td data-label="Event">
                <code>{d.eventType}</code>
                <div class="mono small muted">{d.eventId}</div>
              </td>
              <td data-label="Status">
                {deliveryBadge(d)}
                {d.nextAttemptAt ? <div class="small muted">Next attempt {formatTime(d.nextAttemptAt)}</div> : null}
              </td>
              <td data-label="Attempts">
                <ol class="attempts">
                  {d.attempts.map((a, n) => (
                    <li key={n}>
                      <span>{formatTime(a.at)}</span> ·{' '}
                      <span class="attempt-status">
                        {a.statusCode !== undefined ? `HTTP ${a.statusCode}` : 'no answer'}
                      </span>{' '}
                      · <span class="attempt-duration">{Math.round(a.durationMs)} ms</span>
                      {a.error && a.error !== `HTTP ${a.statusCode}` ? (
                        <div class="small muted break">{a.error}</div>
                      ) : null}
                    </li>
                  ))}
                </ol>
              </td>
              <td>
                {d.status === 'failed' && canRetry ? (
                  <button
                    type="button"
                    disabled={retry.busy}
                    aria-label={`Retry delivery of ${d.eventId}`}
                    onClick={async () => {
                      const r = await retry.run(() =>
                        api.post<{ deliveryId: string }>(`${path}/deliveries/${enc(d.deliveryId)}/retry`),
                      );
                      if (r) {
                        setStatus(`Retry of ${d.eventId} queued.`);
                        setTimeout(() => void page.reload(), 1500);
                      }
                    }}
                  >
                    Retry
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}
      {cursor ? (
        <button
          type="button"
          onClick={async () => {
            const r = await api.get<DeliveryPage>(
              `${path}/deliveries?cursor=${enc(cursor)}${filter ? `&status=${filter}` : ''}`,
            );
            setExtra((x) => [...x, ...r.items]);
            setCursor(r.nextCursor ?? undefined);
          }}
        >
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}
