import { enc, type Api } from '../api.ts';
import { StackedBars } from '../chart.tsx';
import type { BotCreditUsage, WebhookHealth } from '../types.ts';
import { ErrorNotice, Loading, useLoad } from '../ui.tsx';

/** Share of attempts that succeeded, as the integrations list shows it; "—" without attempts. */
export function successRate(health: Pick<WebhookHealth, 'succeeded' | 'failed'>): string {
  const total = health.succeeded + health.failed;
  return total === 0 ? '—' : `${Math.round((health.succeeded / total) * 100)} %`;
}

const hourOf = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** A webhook's last 24 hours: attempts succeeded and failed per hour, and each hour's median latency. */
export function WebhookHealthChart({
  api,
  projectId,
  integrationId,
  version,
}: {
  api: Api;
  projectId: string;
  integrationId: string;
  version?: number;
}) {
  const health = useLoad(
    () => api.get<WebhookHealth>(`/projects/${enc(projectId)}/integrations/${enc(integrationId)}/health`),
    [api, projectId, integrationId, version],
  );
  return (
    <section class="card" aria-labelledby="health-title">
      <div class="row-between">
        <h2 id="health-title">Last 24 hours</h2>
        <button type="button" onClick={() => health.reload()} disabled={health.loading}>
          Update chart
        </button>
      </div>
      <ErrorNotice error={health.error} />
      {!health.data && !health.error ? <Loading what="delivery health" /> : null}
      {health.data ? (
        <>
          <p data-testid="health-summary">
            {health.data.succeeded} succeeded, {health.data.failed} failed · success rate {successRate(health.data)}
          </p>
          <StackedBars
            testId="health-chart"
            title="Delivery attempts per hour, last 24 hours"
            description={`${health.data.succeeded} attempts succeeded and ${health.data.failed} failed in the last 24 hours; the table below gives each hour and its median latency.`}
            labels={health.data.hours.map((h) => hourOf(h.hour))}
            labelEvery={3}
            series={[
              { name: 'Succeeded', tone: 'ok', values: health.data.hours.map((h) => h.succeeded) },
              { name: 'Failed', tone: 'bad', values: health.data.hours.map((h) => h.failed) },
            ]}
            extraColumns={[
              {
                name: 'Median latency',
                values: health.data.hours.map((h) => (h.medianLatencyMs === null ? '—' : `≤ ${h.medianLatencyMs} ms`)),
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}

/** The success-rate figure of one webhook on the integrations list (last 24 hours). */
export function SuccessRateFigure({
  api,
  projectId,
  integrationId,
}: {
  api: Api;
  projectId: string;
  integrationId: string;
}) {
  const health = useLoad(
    () => api.get<WebhookHealth>(`/projects/${enc(projectId)}/integrations/${enc(integrationId)}/health`),
    [api, projectId, integrationId],
  );
  if (!health.data) return <span class="muted small">…</span>;
  return (
    <span class="small" data-testid="success-rate" title="Attempts that succeeded in the last 24 hours">
      {successRate(health.data)} ok (24 h)
    </span>
  );
}

/** Bot credits used per day this month, with the balance and the month's allowance. */
export function CreditUsageChart({ api, projectId, version }: { api: Api; projectId: string; version?: unknown }) {
  const usage = useLoad(
    () => api.get<BotCreditUsage>(`/projects/${enc(projectId)}/bot-credits/usage`),
    [api, projectId, version],
  );
  const data = usage.data;
  const used = data ? data.days.reduce((sum, d) => sum + d.charged - d.refunded, 0) : 0;
  return (
    <section class="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Credits used this month</h2>
      <ErrorNotice error={usage.error} />
      {!data && !usage.error ? <Loading what="credit use" /> : null}
      {data ? (
        <>
          <dl class="facts">
            <dt>Used in {data.mes}</dt>
            <dd data-testid="usage-used">{used}</dd>
            <dt>Balance</dt>
            <dd data-testid="usage-balance">{data.disponivel}</dd>
            <dt>Monthly allowance</dt>
            <dd data-testid="usage-allowance">
              {data.allowance}
              {data.granted ? ` (+ ${data.granted} granted)` : ''}
            </dd>
          </dl>
          <StackedBars
            testId="usage-chart"
            title={`Bot credits used per day, ${data.mes}`}
            description={`${used} credits used so far this month (charged minus refunded), ${data.disponivel} left of an allowance of ${data.allowance}.`}
            labels={data.days.map((d) => String(d.day))}
            labelEvery={data.days.length > 15 ? 5 : 1}
            series={[{ name: 'Credits used', tone: 'accent', values: data.days.map((d) => d.charged - d.refunded) }]}
            extraColumns={[
              { name: 'Charged', values: data.days.map((d) => String(d.charged)) },
              { name: 'Refunded', values: data.days.map((d) => String(d.refunded)) },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}
