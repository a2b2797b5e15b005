import type { ProviderPost } from '../http/provider-client.ts';
import type { TwilioProvider } from '../../messaging/channel.ts';
import {
  callTimeoutMs,
  describeFetchFailure,
  excerpt,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../../messaging/providers.ts';

const DEFAULT_BASE_URL = 'https://api.twilio.com';

/**
 * SMS through the Twilio Messages API: `POST {baseUrl}/2010-04-01/Accounts/{sid}/Messages.json`, HTTP Basic auth
 * with the account SID and auth token, form fields `To`, `From` (the channel's number or sender id), `Body`, and
 * one `MediaUrl` per media URL. Redirects are not followed. `metadata` stays with our message record (Twilio has
 * no such field).
 */
export class TwilioSmsSender implements MessageProvider {
  constructor(private readonly options: { timeoutMs: number; userAgent: string; post: ProviderPost }) {}

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'sms' || channel.provider.kind !== 'twilio')
      throw new ProviderError('The channel is not a Twilio SMS channel');
    const provider: TwilioProvider = channel.provider;
    const form = new URLSearchParams({ To: message.payload.to, From: channel.address, Body: message.payload.body });
    for (const media of message.payload.mediaUrls ?? []) form.append('MediaUrl', media);
    const url = `${(provider.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(provider.accountSid)}/Messages.json`;

    let response: { status: number; text: string };
    try {
      response = await this.options.post(url, {
        headers: {
          authorization: `Basic ${Buffer.from(`${provider.accountSid}:${provider.authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'user-agent': this.options.userAgent,
        },
        body: form.toString(),
        timeoutMs: callTimeoutMs(this.options.timeoutMs, outbound.deadline),
      });
    } catch (error) {
      throw new ProviderError(describeFetchFailure('Twilio', error), { cause: error });
    }
    const text = response.text;
    if (response.status < 200 || response.status > 299) {
      throw new ProviderError(`Twilio answered HTTP ${response.status}${twilioError(text)}`);
    }
    const sid = parseJson(text)?.sid;
    return { providerMessageIds: typeof sid === 'string' ? [sid] : [] };
  }
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Twilio's error body: `{ code, message, more_info, status }`. */
function twilioError(text: string): string {
  const body = parseJson(text);
  if (!body) return '';
  const code = body.code === undefined ? '' : `${String(body.code)} `;
  return typeof body.message === 'string' ? `: ${excerpt(`${code}${body.message}`)}` : '';
}
