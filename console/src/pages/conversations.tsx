import { Can } from '../access.tsx';
import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import type { Channel, Conversation, ConversationMessage, ConversationMessagePage, Suppression } from '../types.ts';
import {
  Badge,
  ConfirmButton,
  ErrorNotice,
  formatTime,
  Loading,
  ResponsiveTable,
  StatusMessage,
  useAction,
  useLoad,
} from '../ui.tsx';

/**
 * A channel's conversations: the contacts it must not send to (opted out, bounced), with a way to lift
 * a suppression, and one contact's conversation: the WhatsApp 24-hour window, whether the contact opted out, and the
 * messages both ways with previews of the images received.
 */
export function ConversationsPanel({ api, base, channels }: { api: Api; base: string; channels: Channel[] }) {
  const [channelId, setChannelId] = useState(channels[0]!.channelId);
  const channel = channels.find((c) => c.channelId === channelId) ?? channels[0]!;
  const path = `${base}/channels/${enc(channel.channelId)}`;
  return (
    <section class="card" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations and opt-outs</h2>
      <label for="conversations-channel">Conversations on</label>
      <select
        id="conversations-channel"
        value={channel.channelId}
        onChange={(e) => setChannelId(e.currentTarget.value)}
      >
        {channels.map((c) => (
          <option key={c.channelId} value={c.channelId}>
            {c.name} ({c.type})
          </option>
        ))}
      </select>
      {channel.optOutKeywords ? (
        <p class="muted small">
          Opt-out keywords: {channel.optOutKeywords.join(', ')} · opt back in: {channel.optInKeywords?.join(', ')}
        </p>
      ) : (
        <p class="muted small">Email: contacts unsubscribe by mail (List-Unsubscribe), and hard bounces suppress.</p>
      )}
      <Suppressions key={channel.channelId} api={api} path={path} />
      <ContactLookup key={`${channel.channelId}-lookup`} api={api} path={path} channel={channel} />
    </section>
  );
}

function Suppressions({ api, path }: { api: Api; path: string }) {
  const list = useLoad(() => api.all<Suppression>(`${path}/suppressions`), [api, path]);
  const remove = useAction();
  const [status, setStatus] = useState<string>();
  return (
    <>
      <h3>Suppressed contacts</h3>
      <ErrorNotice error={list.error ?? remove.error} />
      {!list.data && !list.error ? <Loading what="suppressions" /> : null}
      {list.data && list.data.length === 0 ? <p class="muted">Nobody opted out of this channel.</p> : null}
      {list.data?.length ? (
        <ResponsiveTable label="Suppressed contacts" columns={['Contact', 'Why', 'Since', null]}>
          {list.data.map((s) => (
            <tr key={s.contact}>
              <td data-label="Contact" class="mono break">
                {s.contact}
              </td>
              <td data-label="Why">
                {s.reason === 'bounce'
                  ? 'Mail bounced'
                  : s.reason === 'keyword'
                    ? `Wrote “${s.keyword ?? ''}”`
                    : 'Admin'}
              </td>
              <td data-label="Since">{formatTime(s.at)}</td>
              <td>
                <Can need="developer">
                  <ConfirmButton
                    label="Remove"
                    title="Send to this contact again?"
                    message={
                      <p>
                        {s.contact} opted out or bounced. Removing the suppression lets sends reach it again and emits{' '}
                        <code>contact.opted_in</code>.
                      </p>
                    }
                    confirmLabel="Remove suppression"
                    danger
                    disabled={remove.busy}
                    onConfirm={async () => {
                      const done = await remove.run(async () => {
                        await api.del(`${path}/suppressions/${enc(s.contact)}`);
                        return true;
                      });
                      if (done) {
                        setStatus(`${s.contact} can be sent to again.`);
                        await list.reload();
                      }
                    }}
                  />
                </Can>
              </td>
            </tr>
          ))}
        </ResponsiveTable>
      ) : null}
      <StatusMessage message={status} />
    </>
  );
}

function ContactLookup({ api, path, channel }: { api: Api; path: string; channel: Channel }) {
  const [contact, setContact] = useState('');
  const lookup = useAction();
  const [found, setFound] = useState<{ conversation: Conversation; messages: ConversationMessage[] }>();
  const placeholder =
    channel.type === 'email' ? 'someone@example.com' : channel.type === 'sms' ? '+5511988887777' : '5511988887777';
  return (
    // A lookup, not a change: `data-read` marks it for the checks that a viewer meets no write action.
    <form
      class="form"
      data-read
      aria-labelledby="contact-lookup-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const at = `${path}/conversations/${enc(contact.trim())}`;
        const result = await lookup.run(async () => ({
          conversation: await api.get<Conversation>(at),
          messages: (await api.get<ConversationMessagePage>(`${at}/messages?limit=20`)).items,
        }));
        setFound(result);
      }}
    >
      <h3 id="contact-lookup-title">A contact’s conversation</h3>
      <label for="contact-lookup">Contact</label>
      <input
        id="contact-lookup"
        required
        placeholder={placeholder}
        value={contact}
        onInput={(e) => setContact(e.currentTarget.value)}
      />
      <button type="submit" disabled={lookup.busy}>
        Show
      </button>
      <ErrorNotice error={lookup.error} />
      {found ? <ConversationView conversation={found.conversation} messages={found.messages} /> : null}
    </form>
  );
}

function ConversationView({ conversation, messages }: { conversation: Conversation; messages: ConversationMessage[] }) {
  const win = conversation.window;
  return (
    <div aria-live="polite">
      <p>
        <span class="mono small">{conversation.conversationId}</span>{' '}
        {conversation.optedOut ? <Badge tone="bad">Opted out</Badge> : <Badge tone="ok">Can be sent to</Badge>}{' '}
        {win ? (
          win.open ? (
            <Badge tone="ok">Window open until {formatTime(win.closesAt)}</Badge>
          ) : (
            <Badge tone="warn">
              {win.closesAt ? `Window closed at ${formatTime(win.closesAt)}` : 'Never wrote'}: templates only
            </Badge>
          )
        ) : null}
      </p>
      {messages.length === 0 ? <p class="muted">No messages with this contact yet.</p> : null}
      <ol class="conversation" aria-label="Messages, newest first">
        {messages.map((m) => (
          <li key={m.messageId} class={`message message-${m.direction}`}>
            <div class="muted small">
              {m.direction === 'inbound' ? 'Received' : `Sent · ${m.status}`} · {formatTime(m.createdAt)} ·{' '}
              <span class="mono">{m.messageId}</span>
            </div>
            {m.subject ? <strong>{m.subject}</strong> : null}
            {m.template ? (
              <div>
                Template <code>{m.template.name}</code> ({m.template.language})
              </div>
            ) : null}
            {m.text ? <p class="pre-wrap">{m.text}</p> : null}
            {m.media?.length ? <MediaList media={m.media} /> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Received media: images shown (their presigned URL, loaded straight from the bucket), anything else as a link. */
function MediaList({ media }: { media: NonNullable<ConversationMessage['media']> }) {
  return (
    <ul class="media-list">
      {media.map((item, i) =>
        'error' in item ? (
          <li key={i} class="muted small">
            {item.fileName ?? item.contentType ?? 'Media'}: {item.error}
          </li>
        ) : (
          <li key={i}>
            {item.contentType.startsWith('image/') ? (
              <a href={item.url} target="_blank" rel="noopener noreferrer">
                <img
                  class="media-preview"
                  src={item.url}
                  alt={item.fileName ?? `Image received (${item.contentType})`}
                  loading="lazy"
                />
              </a>
            ) : (
              <a href={item.url} target="_blank" rel="noopener noreferrer">
                {item.fileName ?? item.contentType}
              </a>
            )}{' '}
            <span class="muted small">
              {item.contentType}, {Math.ceil(item.size / 1024)} KB
            </span>
          </li>
        ),
      )}
    </ul>
  );
}
