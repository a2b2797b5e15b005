import { callProvider, type ProviderClient, providerUrl } from './provider-client.ts';
import type { TwilioProvider } from '../channel.ts';
import { ProviderError, type MessageProvider, type OutboundMessage, type ProviderReceipt } from '../providers.ts';

const DEFAULT_BASE_URL = 'https://api.twilio.com';

/**
 * SMS through the Twilio Messages API: `POST {baseUrl}/2010-04-01/Accounts/{sid}/Messages.json`, HTTP Basic auth
 * with the account SID and auth token, form fields `To`, `From` (the channel's number or sender id), `Body`, and
 * one `MediaUrl` per media URL. Redirects are not followed. `metadata` stays with our message record (Twilio has
 * no such field).
 */
export class TwilioSmsSender implements MessageProvider {
  constructor(private readonly client: ProviderClient) {}

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'sms' || channel.provider.kind !== 'twilio')
      throw new ProviderError('The channel is not a Twilio SMS channel');
    const provider: TwilioProvider = channel.provider;
    const form = new URLSearchParams({ To: message.payload.to, From: channel.address, Body: message.payload.body });
    for (const media of message.payload.mediaUrls ?? []) form.append('MediaUrl', media);
    const url = providerUrl(
      provider.baseUrl ?? DEFAULT_BASE_URL,
      `/2010-04-01/Accounts/${encodeURIComponent(provider.accountSid)}/Messages.json`,
    );

    const answer = await callProvider(this.client, {
      provider: 'Twilio',
      url,
      headers: {
        authorization: `Basic ${Buffer.from(`${provider.accountSid}:${provider.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      deadline: outbound.deadline,
      ...(outbound.departure ? { departure: outbound.departure } : {}),
      // Twilio's error answer: `{ code, message, more_info, status }`.
      errorOf: (body) => body,
    });
    const sid = answer?.sid;
    return { providerMessageIds: typeof sid === 'string' ? [sid] : [] };
  }
}
