import { useState } from 'preact/hooks';
import { enc, type Api } from '../api.ts';
import { useEventTypes } from '../catalog.ts';
import { CHANNEL_TYPES, type Channel, type ChannelType, type CreatedIntegration } from '../types.ts';
import { ErrorNotice, Loading, SecretOnce, useAction, useLoad } from '../ui.tsx';
import { type DestinationDraft, DestinationFields, destinationBody } from './destination-fields.tsx';

type Product = 'webhook' | 'custom';
type Scope = 'general' | 'channel';

/** Settings → Integrations → New integration: a webhook or a channel-bound sending token. */
export function NewIntegration({ api, projectId }: { api: Api; projectId: string }) {
  const base = `/projects/${enc(projectId)}`;
  const channels = useLoad(() => api.all<Channel>(`${base}/channels`), [api, projectId]);
  const [product, setProduct] = useState<Product>('webhook');
  const [scope, setScope] = useState<Scope>('general');
  const [channelType, setChannelType] = useState<ChannelType | ''>('');
  const [channelId, setChannelId] = useState('');
  const [url, setUrl] = useState('');
  const [destination, setDestination] = useState<DestinationDraft>({ type: 'http' });
  const [bearerToken, setBearerToken] = useState('');
  const [eventTypes, setEventTypes] = useState<string[]>([]);
  const [rateLimit, setRateLimit] = useState('');
  const catalogTypes = useEventTypes();
  const [created, setCreated] = useState<CreatedIntegration>();
  const save = useAction();

  if (created) {
    const secret = created.token ?? created.signingSecret ?? '';
    const isToken = created.token !== undefined;
    return (
      <section>
        <h1>{isToken ? 'Custom integration created' : 'Webhook created'}</h1>
        <SecretOnce
          title={isToken ? 'Your integration token' : 'Your webhook signing secret'}
          label={isToken ? 'Custom integration token' : 'Webhook signing secret'}
          value={secret}
          onDone={() => {
            setCreated(undefined);
            window.location.hash = `${base}/integrations/${enc(created.integrationId)}`;
          }}
        >
          <p class="muted">
            {isToken ? (
              <>
                Send messages with <code>POST /api/integration/generic</code> and the header{' '}
                <code>Authorization: Bearer &lt;token&gt;</code>.
              </>
            ) : (
              <>
                Verify each delivery's <code>webhook-signature</code> with this secret (Standard Webhooks).
              </>
            )}
          </p>
        </SecretOnce>
      </section>
    );
  }

  const list = channels.data ?? [];
  const ofType = list.filter((c) => c.type === channelType);
  const needsChannel = product === 'custom' || scope === 'channel';

  const submit = async (e: Event) => {
    e.preventDefault();
    const body =
      product === 'custom'
        ? { product, channelId }
        : {
            product,
            scope,
            ...(scope === 'channel' ? { channelId } : {}),
            ...(destination.type === 'http'
              ? { url: url.trim(), ...(bearerToken ? { bearerToken } : {}) }
              : { destination: destinationBody(destination) }),
            ...(eventTypes.length ? { eventTypes } : {}),
            ...(rateLimit.trim() ? { rateLimitPerSecond: Number(rateLimit) } : {}),
          };
    const result = await save.run(() => api.post<CreatedIntegration>(`${base}/integrations`, body));
    if (result) {
      setBearerToken('');
      setCreated(result);
    }
  };

  return (
    <section>
      <h1>New integration</h1>
      <nav aria-label="Breadcrumb" class="muted small">
        <a href={`#${base}/integrations`}>Integrations</a> › New integration
      </nav>
      {channels.error ? <ErrorNotice error={channels.error} /> : null}
      {!channels.data && !channels.error ? <Loading what="channels" /> : null}
      <form class="card form" onSubmit={submit}>
        <RadioGroup
          legend="Product"
          name="product"
          value={product}
          onChange={setProduct}
          options={[
            { value: 'webhook', label: 'Webhook', hint: "We push this project's events to your URL." },
            { value: 'custom', label: 'Custom', hint: 'Your application sends messages on one channel with a token.' },
          ]}
        />

        {product === 'webhook' ? (
          <RadioGroup
            legend="Scope"
            name="scope"
            value={scope}
            onChange={setScope}
            options={[
              { value: 'general', label: 'General', hint: 'Events of every channel of the project.' },
              { value: 'channel', label: 'Specific channel', hint: 'Events of one channel only.' },
            ]}
          />
        ) : null}

        {needsChannel ? (
          <fieldset>
            <legend>Channel</legend>
            {list.length === 0 && channels.data ? (
              <p class="notice notice-warning">
                This project has no channels yet. <a href={`#${base}/channels`}>Create a channel</a> first.
              </p>
            ) : null}
            <label for="channel-type">Type</label>
            <select
              id="channel-type"
              required
              value={channelType}
              onChange={(e) => {
                setChannelType(e.currentTarget.value as ChannelType);
                setChannelId('');
              }}
            >
              <option value="" disabled>
                Choose a type
              </option>
              {CHANNEL_TYPES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label} ({t.value})
                </option>
              ))}
            </select>
            <label for="channel-instance">Instance</label>
            <select
              id="channel-instance"
              required
              disabled={!channelType}
              value={channelId}
              onChange={(e) => setChannelId(e.currentTarget.value)}
            >
              <option value="" disabled>
                {!channelType
                  ? 'Choose a type first'
                  : ofType.length
                    ? 'Choose an instance'
                    : `No ${channelType} channel`}
              </option>
              {ofType.map((c) => (
                <option key={c.channelId} value={c.channelId}>
                  {c.name} — {c.address}
                </option>
              ))}
            </select>
            <p class="hint">
              {channelType === 'whatsapp'
                ? 'A chat-app instance (WhatsApp number).'
                : channelType === 'email'
                  ? 'An email mailbox.'
                  : channelType === 'sms'
                    ? 'An SMS number or sender.'
                    : ''}
            </p>
          </fieldset>
        ) : null}

        {product === 'webhook' ? (
          <fieldset>
            <legend>Destination</legend>
            <DestinationFields value={destination} onChange={setDestination} />
          </fieldset>
        ) : null}
        {product === 'webhook' && destination.type === 'http' ? (
          <fieldset>
            <legend>Endpoint</legend>
            <label for="webhook-url">URL</label>
            <input
              id="webhook-url"
              type="url"
              required
              inputMode="url"
              placeholder="https://example.com/webhooks/switchboard"
              value={url}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
            <label for="webhook-bearer">
              Bearer token <span class="muted">(optional)</span>
            </label>
            <input
              id="webhook-bearer"
              type="password"
              autocomplete="off"
              value={bearerToken}
              onInput={(e) => setBearerToken(e.currentTarget.value)}
              aria-describedby="bearer-hint"
            />
            <p class="hint" id="bearer-hint">
              Sent as <code>Authorization: Bearer …</code> on every delivery. It is never shown again.
            </p>
            <details>
              <summary>Event types (all by default)</summary>
              <div class="checks">
                {catalogTypes.map((t) => (
                  <label key={t} class="check">
                    <input
                      type="checkbox"
                      checked={eventTypes.includes(t)}
                      onChange={(e) =>
                        setEventTypes(e.currentTarget.checked ? [...eventTypes, t] : eventTypes.filter((x) => x !== t))
                      }
                    />{' '}
                    <code>{t}</code>
                  </label>
                ))}
              </div>
              <p class="hint">
                What each type carries: the <a href="#/event-catalog">event catalog</a>.
              </p>
            </details>
            <RateLimitField value={rateLimit} onInput={setRateLimit} />
          </fieldset>
        ) : null}

        <ErrorNotice error={save.error} />
        <div class="actions">
          <a class="button" href={`#${base}/integrations`}>
            Cancel
          </a>
          <button type="submit" class="primary" disabled={save.busy}>
            {product === 'webhook' ? 'Create webhook' : 'Create custom integration'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A set of radio buttons, each with its hint; the fieldset's legend names the choice. */
function RadioGroup<T extends string>(props: {
  legend: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  options: { value: T; label: string; hint: string }[];
}) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map((option) => {
        const id = `${props.name}-${option.value}`;
        return (
          <div class="radio" key={option.value}>
            <input
              type="radio"
              id={id}
              name={props.name}
              value={option.value}
              checked={props.value === option.value}
              onChange={() => props.onChange(option.value)}
              aria-describedby={`${id}-hint`}
            />
            <label for={id}>{option.label}</label>
            <span class="hint" id={`${id}-hint`}>
              {option.hint}
            </span>
          </div>
        );
      })}
    </fieldset>
  );
}

/** `rateLimitPerSecond`: blank is no limit. The API checks the range; the input only helps. */
export function RateLimitField({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label for="webhook-rate-limit">
        Rate limit <span class="muted">(deliveries per second, optional)</span>
      </label>
      <input
        id="webhook-rate-limit"
        type="number"
        min={1}
        max={10000}
        step={1}
        inputMode="numeric"
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-describedby="rate-limit-hint"
      />
      <p class="hint" id="rate-limit-hint">
        At most this many delivery attempts start in any second; the rest wait their turn. Blank: no limit.
      </p>
    </>
  );
}
