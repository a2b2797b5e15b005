import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { BatchPage, BatchProgress, Channel, ScheduledMessagePage } from '../types.ts';
import { ConfirmButton, ErrorNotice, formatTime, Loading, ResponsiveTable, StatusMessage, useLoad } from '../ui.tsx';

/**
 * A channel's sends at volume: the messages scheduled with `sendAt` that have not left (each can be canceled), and
 * its batches, newest first, with how far each has gone (queued, sent, failed, scheduled, canceled, refused).
 */
export function ChannelVolumePanel({ api, base, channels }: { api: Api; base: string; channels: Channel[] }) {
  const [channelId, setChannelId] = useState(channels[0]!.channelId);
  const channel = channels.find((c) => c.channelId === channelId) ?? channels[0]!;
  const path = `${base}/channels/${enc(channel.channelId)}`;
  const scheduled = useLoad(() => api.get<ScheduledMessagePage>(`${path}/scheduled`), [api, path]);
  const batches = useLoad(async () => {
    const page = await api.get<BatchPage>(`${path}/batches`);
    return Promise.all(page.items.map((b) => api.get<BatchProgress>(`${path}/batches/${enc(b.batchId)}`)));
  }, [api, path]);
  const [status, setStatus] = useState<string>();
  return (
    <section class="card" aria-labelledby="volume-title">
      <h2 id="volume-title">Scheduled messages and batches</h2>
      <label for="volume-channel">On</label>
      <select id="volume-channel" value={channel.channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
        {channels.map((c) => (
          <option key={c.channelId} value={c.channelId}>
            {c.name} ({c.type})
          </option>
        ))}
      </select>
      <p class="muted small">Pace: {channel.pace.perSecond} messages a second at most.</p>
      <StatusMessage message={status} />
      <h3>Scheduled</h3>
      <ErrorNotice error={scheduled.error} />
      {!scheduled.data && !scheduled.error ? <Loading what="scheduled messages" /> : null}
      {scheduled.data && !scheduled.data.items.length ? <p class="muted">Nothing scheduled.</p> : null}
      {scheduled.data?.items.length ? (
        <ResponsiveTable label="Scheduled messages" columns={['Sends at', 'To', 'Message', '']}>
          {scheduled.data.items.map((m) => (
            <tr key={m.messageId}>
              <td data-label="Sends at">{formatTime(m.sendAt)}</td>
              <td data-label="To" class="break">
                {[m.to].flat().join(', ')}
              </td>
              <td data-label="Message" class="mono small">
                {m.messageId}
              </td>
              <td>
                <ConfirmButton
                  label="Cancel"
                  title="Cancel this message?"
                  message={`It will never be sent (it was to leave at ${formatTime(m.sendAt)}).`}
                  confirmLabel="Cancel message"
                  danger
                  onConfirm={async () => {
                    try {
                      await api.del(`${path}/scheduled/${enc(m.messageId)}`);
                      setStatus(`Message ${m.messageId} canceled.`);
                    } catch (error) {
                      setStatus(`Not canceled: ${(error as Error).message}`);
                    }
                    await scheduled.reload();
                  }}
                />
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}
      <h3>Batches</h3>
      <ErrorNotice error={batches.error} />
      {!batches.data && !batches.error ? <Loading what="batches" /> : null}
      {batches.data && !batches.data.length ? <p class="muted">No batches yet.</p> : null}
      {batches.data?.length ? (
        <ResponsiveTable label="Batches" columns={['Batch', 'Items', 'Sent', 'Queued', 'Failed', 'Other']}>
          {batches.data.map((b) => (
            <tr key={b.batchId}>
              <td data-label="Batch" class="mono small">
                {b.batchId}
                <div class="muted">{formatTime(b.createdAt)}</div>
              </td>
              <td data-label="Items">{b.total}</td>
              <td data-label="Sent">
                <progress max={b.total} value={b.counts.sent} aria-label={`${b.counts.sent} of ${b.total} sent`} />{' '}
                {b.counts.sent}
              </td>
              <td data-label="Queued">{b.counts.queued}</td>
              <td data-label="Failed">{b.counts.failed}</td>
              <td data-label="Other" class="small">
                {b.counts.scheduled} scheduled, {b.counts.canceled} canceled, {b.counts.refused} refused
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}
      <button type="button" onClick={() => Promise.all([scheduled.reload(), batches.reload()])}>
        Refresh
      </button>
    </section>
  );
}
