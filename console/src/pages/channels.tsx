import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import { CHANNEL_TYPES, type Channel, type ChannelType } from '../types.ts';
import { ErrorNotice, Loading, StatusMessage, useAction, useLoad } from '../ui.tsx';

const ADDRESS_HINT: Record<ChannelType, string> = {
  whatsapp: 'The WhatsApp number, digits only (e.g. 5511999990000).',
  email: 'The mailbox messages are sent from (e.g. support@example.com).',
  sms: 'The sender in E.164 (+5511999990000) or an alphanumeric sender id.',
};

/** The project's channels (WhatsApp instances, mailboxes, SMS numbers); new ones use the sandbox provider. */
export function ChannelsPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const channels = useLoad(
    () => api.get<{ items: Channel[] }>(`${base}/channels`).then((r) => r.items),
    [api, projectId],
  );
  const [form, setForm] = useState<{ type: ChannelType; name: string; address: string; credits: string }>({
    type: 'whatsapp',
    name: '',
    address: '',
    credits: '',
  });
  const save = useAction();
  const [status, setStatus] = useState<string>();

  return (
    <section>
      <h1>Channels</h1>
      <ErrorNotice error={channels.error} />
      {!channels.data && !channels.error ? <Loading what="channels" /> : null}
      {channels.data && channels.data.length === 0 ? <p class="muted">No channels yet.</p> : null}
      {channels.data?.length ? (
        <table class="responsive" aria-label="Channels">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Name</th>
              <th scope="col">Address</th>
              <th scope="col">Provider</th>
              <th scope="col">Credits</th>
            </tr>
          </thead>
          <tbody>
            {channels.data.map((c) => (
              <tr key={c.channelId}>
                <td data-label="Type">{c.type}</td>
                <td data-label="Name">
                  {c.name}
                  <div class="mono small muted">{c.channelId}</div>
                </td>
                <td data-label="Address" class="break">
                  {c.address}
                </td>
                <td data-label="Provider">{c.provider.kind}</td>
                <td data-label="Credits">{c.credits ?? 'Unmetered'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <form
        class="card form"
        aria-labelledby="new-channel-title"
        onSubmit={async (e) => {
          e.preventDefault();
          const created = await save.run(() =>
            api.post<Channel>(`${base}/channels`, {
              type: form.type,
              name: form.name.trim(),
              address: form.address.trim(),
              ...(form.credits ? { credits: Number(form.credits) } : {}),
            }),
          );
          if (created) {
            setStatus(`Channel ${created.name} created.`);
            setForm({ ...form, name: '', address: '', credits: '' });
            await channels.reload();
          }
        }}
      >
        <h2 id="new-channel-title">New channel</h2>
        <p class="muted small">
          New channels use the sandbox provider (messages are recorded, not sent). SMTP, Twilio and WhatsApp Cloud
          providers are set through the management API (<code>provider</code> on channel create).
        </p>
        <label for="channel-new-type">Type</label>
        <select
          id="channel-new-type"
          value={form.type}
          onChange={(e) => setForm({ ...form, type: e.currentTarget.value as ChannelType })}
        >
          {CHANNEL_TYPES.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
        <label for="channel-new-name">Name</label>
        <input
          id="channel-new-name"
          required
          maxLength={200}
          value={form.name}
          onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
        />
        <label for="channel-new-address">Address</label>
        <input
          id="channel-new-address"
          required
          value={form.address}
          onInput={(e) => setForm({ ...form, address: e.currentTarget.value })}
          aria-describedby="address-hint"
        />
        <p class="hint" id="address-hint">
          {ADDRESS_HINT[form.type]}
        </p>
        <label for="channel-new-credits">
          Credits <span class="muted">(optional; empty = unmetered)</span>
        </label>
        <input
          id="channel-new-credits"
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          value={form.credits}
          onInput={(e) => setForm({ ...form, credits: e.currentTarget.value })}
        />
        <ErrorNotice error={save.error} />
        <StatusMessage message={status} />
        <button type="submit" class="primary" disabled={save.busy}>
          Create channel
        </button>
      </form>
    </section>
  );
}
