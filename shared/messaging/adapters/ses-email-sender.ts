import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { localCredentials, leanSdkClient } from '../../kernel/aws/clients.ts';
import type { SesProvider } from '../channel.ts';
import {
  callTimeoutMs,
  depart,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../providers.ts';

/** SES's answers that mean "too many requests" (its sending rate or a throttled API): retried by paced sends. */
const THROTTLED = new Set(['TooManyRequestsException', 'ThrottlingException', 'LimitExceededException']);

export interface SesSenderOptions {
  timeoutMs: number;
  /** The deployment's region, when the channel names none. */
  region: string;
  /** The local SES stand-in; absent on AWS. */
  endpoint?: string;
  /** The deployment's configuration set (its events come back to the inbound worker), when the channel names none. */
  configurationSet?: string;
}

/**
 * Email through SES v2 `SendEmail`: `From` is the channel's address (with `fromName`), `to` and `bcc` as given,
 * `body`/`text` as the text part and `html` as the HTML part, `In-Reply-To` and `References` as headers, sent in the
 * channel's configuration set (else the deployment's), whose Delivery, Bounce, Complaint and Reject events come back
 * as `message.delivered`, `message.failed` and `contact.opted_out`. SES's message id is the provider id those events
 * are matched by. One client per region, reused.
 */
export class SesEmailSender implements MessageProvider {
  private readonly clients = new Map<string, SESv2Client>();

  constructor(private readonly options: SesSenderOptions) {}

  private client(region: string): SESv2Client {
    let client = this.clients.get(region);
    if (!client) {
      client = leanSdkClient(
        new SESv2Client({
          region,
          ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
          ...localCredentials(this.options.endpoint),
          // One request per send, never the SDK's second try: after a reset SES may have taken the first (a mail sent
          // twice), and a paced send's retry would leave outside its slot. A throttled send comes back to the
          // service's own backoff (`rateLimited`), a failure ends the message `failed` as with the other providers.
          maxAttempts: 1,
        }),
      );
      this.clients.set(region, client);
    }
    return client;
  }

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'email' || channel.provider.kind !== 'ses')
      throw new ProviderError('The channel is not an SES email channel');
    const provider: SesProvider = channel.provider;
    const p = message.payload;
    const text = p.text ?? p.body;
    const headers = [
      ...(p.inReplyTo ? [{ Name: 'In-Reply-To', Value: p.inReplyTo }] : []),
      ...(p.references?.length ? [{ Name: 'References', Value: [p.references].flat().join(' ') }] : []),
    ];
    const configurationSet = provider.configurationSet ?? this.options.configurationSet;
    // A paced send's last check before the client is handed the mail (outside the try: a late send is not SES's).
    await depart(outbound.departure);
    try {
      const answer = await this.client(provider.region ?? this.options.region).send(
        new SendEmailCommand({
          FromEmailAddress: p.fromName ? `"${p.fromName.replace(/["\\]/g, '')}" <${channel.address}>` : channel.address,
          ...(provider.fromArn ? { FromEmailAddressIdentityArn: provider.fromArn } : {}),
          Destination: { ToAddresses: p.to, ...(p.bcc?.length ? { BccAddresses: p.bcc } : {}) },
          Content: {
            Simple: {
              Subject: { Data: p.subject, Charset: 'UTF-8' },
              Body: {
                ...(text ? { Text: { Data: text, Charset: 'UTF-8' } } : {}),
                ...(p.html ? { Html: { Data: p.html, Charset: 'UTF-8' } } : {}),
              },
              ...(headers.length ? { Headers: headers } : {}),
            },
          },
          ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        }),
        { abortSignal: AbortSignal.timeout(callTimeoutMs(this.options.timeoutMs, outbound.deadline)) },
      );
      return { providerMessageIds: answer.MessageId ? [answer.MessageId] : [] };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new ProviderError(`SES did not answer in time (${(error as Error).message})`);
      const said = (error as { message?: string }).message ?? '';
      throw new ProviderError(`SES refused the mail: ${name}${said ? `: ${said.slice(0, 200)}` : ''}`, {
        rateLimited: THROTTLED.has(name),
      });
    }
  }
}
