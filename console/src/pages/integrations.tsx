import { Can } from '../access.tsx';
import { enc, type Api } from '../api.ts';
import type { Channel, Integration } from '../types.ts';
import { Badge, ErrorNotice, formatTime, Loading, ResponsiveTable, useLoad } from '../ui.tsx';
import { SuccessRateFigure } from './usage-charts.tsx';

export function channelLabel(channels: Channel[] | undefined, channelId: string | null): string {
  if (!channelId) return 'All channels';
  const channel = channels?.find((c) => c.channelId === channelId);
  return channel ? `${channel.type.toUpperCase()} · ${channel.name} (${channel.address})` : `${channelId} (deleted)`;
}

export function integrationStatus(integration: Integration) {
  if (integration.product === 'custom') return <Badge tone="ok">Active</Badge>;
  if (integration.enabled) return <Badge tone="ok">Enabled</Badge>;
  const reason =
    integration.disabledReason === 'gone'
      ? 'receiver answered 410'
      : integration.disabledReason === 'manual'
        ? 'by hand'
        : integration.disabledReason;
  return <Badge tone="warn">Disabled{reason ? ` (${reason})` : ''}</Badge>;
}

/** Settings → Integrations: every webhook and custom integration of the project. */
export function IntegrationsPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const data = useLoad(async () => {
    const [integrations, channels] = await Promise.all([
      api.all<Integration>(`${base}/integrations`),
      api.all<Channel>(`${base}/channels`),
    ]);
    return { integrations, channels };
  }, [api, projectId]);
  return (
    <section>
      <div class="row-between">
        <h1>Integrations</h1>
        <Can need="developer">
          <a class="button primary" href={`#${base}/integrations/new`}>
            New integration
          </a>
        </Can>
      </div>
      <p class="muted">
        Webhooks push this project's events to your URL. Custom integrations hold a token that sends messages on one
        channel.
      </p>
      <ErrorNotice error={data.error} />
      {!data.data ? (
        data.error ? null : (
          <Loading what="integrations" />
        )
      ) : data.data.integrations.length === 0 ? (
        <div class="card empty">
          <p>No integrations yet.</p>
          <Can need="developer">
            <a href={`#${base}/integrations/new`}>Create the first one</a>
          </Can>
        </div>
      ) : (
        <ResponsiveTable label="Integrations" columns={['Type', 'Channel', 'Destination', 'Status', 'Created', null]}>
          {data.data.integrations.map((i) => (
            <tr key={i.integrationId} data-integration-id={i.integrationId}>
              <td data-label="Type">
                {i.product === 'webhook' ? 'Webhook' : 'Custom'}
                <div class="mono small muted">{i.integrationId}</div>
              </td>
              <td data-label="Channel">
                {i.product === 'webhook' && i.scope === 'general'
                  ? 'General (all channels)'
                  : channelLabel(data.data!.channels, i.channelId)}
              </td>
              <td data-label="Destination" class="break">
                {i.product === 'webhook' ? i.url : 'Send endpoint (token)'}
              </td>
              <td data-label="Status">
                {integrationStatus(i)}
                {i.product === 'webhook' ? (
                  <div>
                    <SuccessRateFigure api={api} projectId={projectId} integrationId={i.integrationId} />
                  </div>
                ) : null}
              </td>
              <td data-label="Created">{formatTime(i.createdAt)}</td>
              <td>
                <a
                  href={`#${base}/integrations/${enc(i.integrationId)}`}
                  aria-label={`Manage ${i.product} integration ${i.integrationId}`}
                >
                  Manage
                </a>
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      )}
    </section>
  );
}
