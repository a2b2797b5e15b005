import { callProvider, type ProviderClient, providerUrl } from './provider-client.ts';
import type { WhatsAppCloudProvider } from '../channel.ts';
import type { WhatsAppPayload } from '../payloads.ts';

type WhatsAppTemplate = NonNullable<WhatsAppPayload['template']>;
import {
  type DepartureGate,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../providers.ts';

const DEFAULT_BASE_URL = 'https://graph.facebook.com';
const API_VERSION = 'v21.0';
const IMAGE_EXTENSIONS = /\.(jpe?g|png)$/i;

/**
 * WhatsApp through the Cloud API: `POST {baseUrl}/v21.0/{phoneNumberId}/messages` with the access token as bearer:
 * the text message (or the template) first, then one message per file URL (an `image` for .jpg/.jpeg/.png, else a `document` named
 * after the URL's last path segment), in order, each call with its own deadline. A failure midway stops there
 * (the ids of what went out are kept on the error).
 */
export class WhatsAppCloudSender implements MessageProvider {
  constructor(private readonly client: ProviderClient) {}

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'whatsapp' || channel.provider.kind !== 'whatsapp-cloud')
      throw new ProviderError('The channel is not a WhatsApp Cloud channel');
    const provider: WhatsAppCloudProvider = channel.provider;
    const url = providerUrl(
      provider.baseUrl ?? DEFAULT_BASE_URL,
      `/${API_VERSION}/${encodeURIComponent(provider.phoneNumberId)}/messages`,
    );
    const to = message.payload.number;
    const template = message.payload.template;
    const bodies: Record<string, unknown>[] = [
      template ? templateMessage(template) : { type: 'text', text: { body: message.payload.message ?? '' } },
    ];
    for (const file of message.payload.files ?? []) bodies.push(fileMessage(file));

    const ids: string[] = [];
    for (const [index, body] of bodies.entries()) {
      const first = template ? `the template ${template.name}` : 'the text message';
      const part = index === 0 ? first : `file ${index} of ${bodies.length - 1}`;
      ids.push(
        await this.post(
          url,
          provider.accessToken,
          { messaging_product: 'whatsapp', recipient_type: 'individual', to, ...body },
          outbound.deadline,
          part,
          ids,
          // The pace counts messages: a send's first call is its departure, its files follow it.
          index === 0 ? outbound.departure : undefined,
        ),
      );
    }
    return { providerMessageIds: ids };
  }

  private async post(
    url: string,
    accessToken: string,
    body: unknown,
    deadline: number,
    part: string,
    sentSoFar: string[],
    departure: DepartureGate | undefined,
  ): Promise<string> {
    const answer = await callProvider(this.client, {
      provider: 'WhatsApp Cloud API',
      url,
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
      deadline: deadline,
      part,
      sentSoFar,
      ...(departure ? { departure } : {}),
      // Graph API error answer: `{ error: { message, type, code } }`.
      errorOf: (answer) => answer.error,
    });
    const id = (answer?.messages as { id?: unknown }[] | undefined)?.[0]?.id;
    return typeof id === 'string' ? id : '';
  }
}

/**
 * Meta's template message: the template by name and language, its body's variables as text parameters in order
 * (`{{1}}`, `{{2}}`…). A template without variables has no components.
 */
function templateMessage(template: WhatsAppTemplate): Record<string, unknown> {
  return {
    type: 'template',
    template: {
      name: template.name,
      language: { code: template.language },
      ...(template.variables?.length
        ? { components: [{ type: 'body', parameters: template.variables.map((text) => ({ type: 'text', text })) }] }
        : {}),
    },
  };
}

function fileMessage(fileUrl: string): Record<string, unknown> {
  const path = new URL(fileUrl).pathname;
  if (IMAGE_EXTENSIONS.test(path)) return { type: 'image', image: { link: fileUrl } };
  const last = path.split('/').filter(Boolean).pop() ?? '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: keep the segment as it is.
  }
  return { type: 'document', document: { link: fileUrl, filename: name || 'file' } };
}
