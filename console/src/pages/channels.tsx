import { Can } from '../access.tsx';
import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import { CHANNEL_TYPES, type Channel, type ChannelType } from '../types.ts';
import { ErrorNotice, Loading, ResponsiveTable, StatusMessage, useAction, useLoad } from '../ui.tsx';
import { ChannelVolumePanel } from './channel-volume.tsx';
import { ConversationsPanel } from './conversations.tsx';

const ADDRESS_HINT: Record<ChannelType, string> = {
  whatsapp: 'The WhatsApp number, digits only (e.g. 5511999990000).',
  email: 'The mailbox messages are sent from (e.g. support@example.com).',
  sms: 'The sender in E.164 (+5511999990000) or an alphanumeric sender id.',
};

/** The project's channels (WhatsApp instances, mailboxes, SMS numbers); new ones use the sandbox provider. */
export function ChannelsPage({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const channels = useLoad(() => api.all<Channel>(`${base}/channels`), [api, projectId]);
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
        <ResponsiveTable label="Channels" columns={['Type', 'Name', 'Address', 'Provider', 'Credits', 'Inbound']}>
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
              <td data-label="Inbound" class="break small">
                <InboundCell channel={c} />
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}

      {channels.data?.length ? <ConversationsPanel api={api} base={base} channels={channels.data} /> : null}
      {channels.data?.length ? <ChannelVolumePanel api={api} base={base} channels={channels.data} /> : null}

      {channels.data?.some((c) => c.provider.kind === 'sandbox') ? (
        <Can need="developer">
          <SimulateForm api={api} base={base} channels={channels.data.filter((c) => c.provider.kind === 'sandbox')} />
        </Can>
      ) : null}

      <Can need="admin">
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
      </Can>
    </section>
  );
}

/** Where the channel's provider reports back: the URL (and Meta's verify token) or the mailbox. */
function InboundCell({ channel }: { channel: Channel }) {
  const inbound = channel.inbound;
  if (!inbound) return <span class="muted">—</span>;
  if ('address' in inbound) return <span class="mono">mail to {inbound.address}</span>;
  return (
    <>
      <div class="mono">{inbound.url}</div>
      {inbound.verifyToken ? (
        <div>
          Verify token: <code>{inbound.verifyToken}</code>
        </div>
      ) : null}
    </>
  );
}

/**
 * The sandbox standing in for a provider: a contact's reply (`message.received`) or a receipt for a sent message
 * (`message.delivered` / `.read` / `.failed`), delivered to the project's webhooks like a real one.
 */
function SimulateForm({ api, base, channels }: { api: Api; base: string; channels: Channel[] }) {
  const [form, setForm] = useState({
    channelId: channels[0]!.channelId,
    kind: 'reply' as 'reply' | 'receipt',
    from: '',
    subject: '',
    text: '',
    messageId: '',
    status: 'delivered',
  });
  const action = useAction();
  const [status, setStatus] = useState<string>();
  const channel = channels.find((c) => c.channelId === form.channelId) ?? channels[0]!;
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch });
  return (
    <form
      class="card form"
      aria-labelledby="simulate-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const path = `${base}/channels/${enc(channel.channelId)}/sandbox/${form.kind === 'reply' ? 'inbound' : 'status'}`;
        const body =
          form.kind === 'reply'
            ? {
                from: form.from.trim(),
                text: form.text,
                ...(channel.type === 'email' ? { subject: form.subject } : {}),
              }
            : { messageId: form.messageId.trim(), status: form.status };
        const done = await action.run(() => api.post<{ eventId?: string }>(path, body));
        if (done)
          setStatus(done.eventId ? `Event ${done.eventId} sent to the webhooks.` : 'Accepted: nothing changed.');
      }}
    >
      <h2 id="simulate-title">Simulate a reply or a receipt</h2>
      <p class="muted small">Sandbox channels only: the event reaches the project's webhooks like a provider's.</p>
      <label for="simulate-channel">Channel</label>
      <select id="simulate-channel" value={form.channelId} onChange={(e) => set({ channelId: e.currentTarget.value })}>
        {channels.map((c) => (
          <option key={c.channelId} value={c.channelId}>
            {c.name} ({c.type})
          </option>
        ))}
      </select>
      <label for="simulate-kind">What</label>
      <select
        id="simulate-kind"
        value={form.kind}
        onChange={(e) => set({ kind: e.currentTarget.value as 'reply' | 'receipt' })}
      >
        <option value="reply">A reply from a contact</option>
        <option value="receipt">A receipt for a sent message</option>
      </select>
      {form.kind === 'reply' ? (
        <>
          <label for="simulate-from">From</label>
          <input id="simulate-from" required value={form.from} onInput={(e) => set({ from: e.currentTarget.value })} />
          {channel.type === 'email' ? (
            <>
              <label for="simulate-subject">Subject</label>
              <input
                id="simulate-subject"
                value={form.subject}
                onInput={(e) => set({ subject: e.currentTarget.value })}
              />
            </>
          ) : null}
          <label for="simulate-text">Text</label>
          <textarea id="simulate-text" value={form.text} onInput={(e) => set({ text: e.currentTarget.value })} />
        </>
      ) : (
        <>
          <label for="simulate-message">Message id</label>
          <input
            id="simulate-message"
            required
            placeholder="msg_…"
            value={form.messageId}
            onInput={(e) => set({ messageId: e.currentTarget.value })}
          />
          <label for="simulate-status">Status</label>
          <select id="simulate-status" value={form.status} onChange={(e) => set({ status: e.currentTarget.value })}>
            <option value="delivered">delivered</option>
            <option value="read">read</option>
            <option value="failed">failed</option>
          </select>
        </>
      )}
      <ErrorNotice error={action.error} />
      <StatusMessage message={status} />
      <button type="submit" class="primary" disabled={action.busy}>
        Simulate
      </button>
    </form>
  );
}
