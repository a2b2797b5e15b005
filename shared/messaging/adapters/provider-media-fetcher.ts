import { createHash } from 'node:crypto';
import type { Channel } from '../channel.ts';
import {
  type FetchedMedia,
  MAX_MEDIA_BYTES,
  MediaFetchError,
  type MediaFetcher,
  type MediaReference,
} from '../media.ts';
import { describeFetchFailure } from '../providers.ts';
import { type ProviderGet, type ProviderGetResponse, providerUrl, ResponseTooLargeError } from './provider-client.ts';

const GRAPH_BASE_URL = 'https://graph.facebook.com';
const GRAPH_API_VERSION = 'v21.0';
const TWILIO_BASE_URL = 'https://api.twilio.com';
/** Twilio answers a media URL with a redirect to its media host; one or two hops are normal. */
const MAX_REDIRECTS = 3;

/**
 * Downloads inbound media with the channel's credentials, through the guarded provider client (SSRF checked on the
 * address connected to, a deadline, bodies counted as they stream and stopped past 16 MB):
 * - WhatsApp Cloud: `GET {graph}/v21.0/{media-id}` with the access token → `{ url, mime_type, sha256, file_size }`,
 *   then `GET url` with the same token (Meta's lookaside host requires it); Meta's `sha256` is checked.
 * - Twilio: `GET MediaUrl` with HTTP Basic auth (account SID and auth token), following Twilio's redirect to its
 *   media host. Credentials go only to the provider's own origin (the channel's base URL, or Twilio's API): never
 *   to a host a redirect names.
 * Every failure is a {@link MediaFetchError} in words fit for the event.
 */
export class ProviderMediaFetcher implements MediaFetcher {
  constructor(
    private readonly options: {
      get: ProviderGet;
      userAgent: string;
      maxBytes?: number;
    },
  ) {}

  private get maxBytes(): number {
    return this.options.maxBytes ?? MAX_MEDIA_BYTES;
  }

  async fetch(channel: Channel, reference: MediaReference, deadline: number): Promise<FetchedMedia> {
    const provider = channel.provider;
    if (reference.providerMediaId && provider.kind === 'whatsapp-cloud')
      return this.whatsApp(
        provider.baseUrl ?? GRAPH_BASE_URL,
        provider.accessToken,
        reference.providerMediaId,
        deadline,
      );
    if (reference.providerUrl && provider.kind === 'twilio') {
      const origin = new URL(provider.baseUrl ?? TWILIO_BASE_URL).origin;
      const basic = Buffer.from(`${provider.accountSid}:${provider.authToken}`).toString('base64');
      return this.download('Twilio', reference.providerUrl, { origin, authorization: `Basic ${basic}` }, deadline);
    }
    throw new MediaFetchError('The channel cannot fetch these media');
  }

  private async whatsApp(base: string, token: string, mediaId: string, deadline: number): Promise<FetchedMedia> {
    const lookupUrl = providerUrl(base, `/${GRAPH_API_VERSION}/${encodeURIComponent(mediaId)}`);
    const auth = { origin: new URL(lookupUrl).origin, authorization: `Bearer ${token}` };
    const answer = await this.call('WhatsApp Cloud API', lookupUrl, auth, deadline, 64 * 1024);
    if (answer.status < 200 || answer.status > 299)
      throw new MediaFetchError(`WhatsApp Cloud API answered HTTP ${answer.status} for media ${mediaId}`);
    let info: { url?: unknown; mime_type?: unknown; sha256?: unknown; file_size?: unknown };
    try {
      info = JSON.parse(answer.body.toString('utf8')) as typeof info;
    } catch {
      throw new MediaFetchError('WhatsApp Cloud API answered the media lookup with something that is not JSON');
    }
    if (typeof info.url !== 'string' || !URL.canParse(info.url))
      throw new MediaFetchError('WhatsApp Cloud API gave no media URL');
    if (typeof info.file_size === 'number' && info.file_size > this.maxBytes)
      throw new MediaFetchError(`The media are larger than ${this.maxBytes} bytes`);
    // Meta's media URL is on its own host (lookaside.fbsbx.com) and needs the same token.
    const media = await this.download(
      'WhatsApp Cloud API',
      info.url,
      { origin: new URL(info.url).origin, authorization: `Bearer ${token}` },
      deadline,
    );
    if (typeof info.sha256 === 'string' && /^[0-9a-f]{64}$/i.test(info.sha256)) {
      const actual = createHash('sha256').update(media.bytes).digest('hex');
      if (actual !== info.sha256.toLowerCase())
        throw new MediaFetchError('The media downloaded do not match the sha256 WhatsApp gave');
    }
    return {
      ...media,
      contentType: media.contentType ?? (typeof info.mime_type === 'string' ? info.mime_type : undefined),
    };
  }

  /** GET with redirects followed by hand: the credentials travel only to `auth.origin`. */
  private async download(
    provider: string,
    url: string,
    auth: { origin: string; authorization: string },
    deadline: number,
  ): Promise<FetchedMedia> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const answer = await this.call(provider, current, auth, deadline, this.maxBytes);
      if (answer.status >= 300 && answer.status < 400) {
        const location = header(answer, 'location');
        if (!location) throw new MediaFetchError(`${provider} answered HTTP ${answer.status} without a location`);
        current = new URL(location, current).toString();
        continue;
      }
      if (answer.status < 200 || answer.status > 299)
        throw new MediaFetchError(`${provider} answered HTTP ${answer.status} for the media`);
      return {
        bytes: answer.body,
        ...(header(answer, 'content-type') ? { contentType: header(answer, 'content-type') } : {}),
        ...(fileNameOf(header(answer, 'content-disposition'))
          ? { fileName: fileNameOf(header(answer, 'content-disposition')) }
          : {}),
      };
    }
    throw new MediaFetchError(`${provider} redirected more than ${MAX_REDIRECTS} times`);
  }

  private async call(
    provider: string,
    url: string,
    auth: { origin: string; authorization: string },
    deadline: number,
    maxBytes: number,
  ): Promise<ProviderGetResponse> {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
      throw new MediaFetchError(`${provider} gave a media URL that is not http(s)`);
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) throw new MediaFetchError(`${provider} did not deliver the media in time`);
    try {
      return await this.options.get(url, {
        headers: {
          'user-agent': this.options.userAgent,
          ...(target.origin === auth.origin ? { authorization: auth.authorization } : {}),
        },
        timeoutMs,
        maxBytes,
      });
    } catch (error) {
      if (error instanceof ResponseTooLargeError)
        throw new MediaFetchError(`The media are larger than ${maxBytes} bytes`, { cause: error });
      throw new MediaFetchError(describeFetchFailure(provider, error), { cause: error });
    }
  }
}

function header(answer: ProviderGetResponse, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `filename` of a Content-Disposition (`filename*=UTF-8''…` preferred). */
function fileNameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
  return plain ? (plain[2] ?? plain[1]!).trim() : undefined;
}
