import { describe, expect, it } from 'vitest';
import {
  callProvider,
  type ProviderCall,
  type ProviderClient,
  type ProviderPost,
} from '#shared/messaging/adapters/provider-client.ts';
import { ProviderError } from '#shared/messaging/providers.ts';

const client = (post: ProviderPost): ProviderClient => ({ timeoutMs: 1000, userAgent: 'Switchboard/test', post });
const answering = (status: number, text: string) => client(async () => ({ status, text }));

const twilioCall: ProviderCall = {
  provider: 'Twilio',
  url: 'https://api.twilio.example/Messages.json',
  headers: { authorization: 'Basic c2VjcmV0' },
  body: 'To=%2B5511',
  deadline: Date.now() + 60_000,
  errorOf: (body) => body,
};
const graphCall: ProviderCall = {
  ...twilioCall,
  provider: 'WhatsApp Cloud API',
  part: 'file 1 of 2',
  sentSoFar: ['wamid.1'],
  errorOf: (answer) => answer.error,
};

async function failure(provider: ProviderClient, call: ProviderCall): Promise<ProviderError> {
  const error = await callProvider(provider, call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('callProvider', () => {
  it('resolves with the JSON answer of a 2xx, asking for JSON with the user agent beside the call headers', async () => {
    let seen: Record<string, string> = {};
    let timeoutMs = 0;
    const post: ProviderPost = async (_url, request) => {
      seen = request.headers;
      timeoutMs = request.timeoutMs;
      return { status: 201, text: '{"sid":"SM1"}' };
    };
    expect(await callProvider(client(post), twilioCall)).toEqual({ sid: 'SM1' });
    expect(timeoutMs).toBe(1000);
    expect(seen).toEqual({
      authorization: 'Basic c2VjcmV0',
      accept: 'application/json',
      'user-agent': 'Switchboard/test',
    });
    expect(await callProvider(answering(200, 'OK'), twilioCall)).toBeUndefined();
  });

  it("names Twilio's code and message from its error body", async () => {
    const body = JSON.stringify({ code: 21211, message: "The 'To' number is not valid.", status: 400 });
    const error = await failure(answering(400, body), twilioCall);
    expect(error.message).toBe("Twilio answered HTTP 400: 21211 The 'To' number is not valid.");
    expect(error.sentProviderMessageIds).toEqual([]);
  });

  it("names the Graph API's error, the part that failed, and keeps what already went out", async () => {
    const body = JSON.stringify({ error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } });
    const error = await failure(answering(400, body), graphCall);
    expect(error.message).toBe('WhatsApp Cloud API answered HTTP 400 (file 1 of 2): 100 Invalid parameter');
    expect(error.sentProviderMessageIds).toEqual(['wamid.1']);
  });

  it('says only the status when the error answer has no message (HTML, or another shape)', async () => {
    expect((await failure(answering(502, '<html>Bad gateway</html>'), twilioCall)).message).toBe(
      'Twilio answered HTTP 502',
    );
    expect((await failure(answering(500, '{"message":"boom"}'), graphCall)).message).toBe(
      'WhatsApp Cloud API answered HTTP 500 (file 1 of 2)',
    );
  });

  it('cuts a long provider message to a one-line excerpt', async () => {
    const body = JSON.stringify({ message: `first\n${'x'.repeat(500)}` });
    const { message } = await failure(answering(400, body), twilioCall);
    expect(message.startsWith('Twilio answered HTTP 400: first xxx')).toBe(true);
    expect(message.endsWith('…')).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('turns a call that never got an answer into a timeout or unreachable error, with the cause and the part', async () => {
    const timedOut = Object.assign(new Error('aborted'), { name: 'TimeoutError' });
    const error = await failure(
      client(async () => Promise.reject(timedOut)),
      graphCall,
    );
    expect(error.message).toBe('WhatsApp Cloud API did not answer in time (file 1 of 2)');
    expect(error.cause).toBe(timedOut);
    expect(error.sentProviderMessageIds).toEqual(['wamid.1']);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(
      (
        await failure(
          client(async () => Promise.reject(refused)),
          twilioCall,
        )
      ).message,
    ).toBe('Twilio could not be reached');
  });
});
