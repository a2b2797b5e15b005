import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProviderPost } from '#shared/messaging/adapters/provider-client.ts';
import { TwilioSmsSender } from '#shared/messaging/adapters/twilio-sms-sender.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import { ProviderError } from '#shared/messaging/providers.ts';
import { startHttpDouble } from '../../e2e/send-doubles.ts';

let double: Awaited<ReturnType<typeof startHttpDouble>>;
beforeAll(async () => {
  double = await startHttpDouble({ reply: () => ({ status: 201, body: { sid: 'SM1' } }) });
});
afterAll(async () => double?.close());

const channel = (baseUrl: string): Channel => ({
  channelId: 'ch_1',
  projectId: 'prj_1',
  companyId: 1,
  type: 'sms',
  name: 'x',
  address: '+5511999990000',
  provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok', baseUrl },
  createdAt: new Date().toISOString(),
});
const sms = { type: 'sms' as const, payload: { to: '+5511988887777', body: 'hi' } };

describe('provider HTTP client', () => {
  it('reaches a loopback double when private destinations are allowed', async () => {
    const sender = new TwilioSmsSender({
      timeoutMs: 2000,
      userAgent: 'test',
      post: makeProviderPost({ allowPrivate: true }),
    });
    await expect(
      sender.send({ channel: channel(double.baseUrl), message: sms, deadline: Date.now() + 5000 }),
    ).resolves.toEqual({ providerMessageIds: ['SM1'] });
    expect(double.requests[0]!.headers['user-agent']).toBe('test');
  });

  it('refuses loopback, private and metadata addresses otherwise, before connecting', async () => {
    double.reset();
    const sender = new TwilioSmsSender({
      timeoutMs: 2000,
      userAgent: 'test',
      post: makeProviderPost({ allowPrivate: false }),
    });
    for (const baseUrl of [
      double.baseUrl,
      'http://169.254.169.254',
      'http://[::1]:9',
      'http://localhost:9',
      'http://0x7f.1:9',
    ]) {
      const error = await sender
        .send({ channel: channel(baseUrl), message: sms, deadline: Date.now() + 5000 })
        .catch((e: unknown) => e);
      expect(error, baseUrl).toBeInstanceOf(ProviderError);
      expect((error as Error).message, baseUrl).toMatch(/not allow|could not be reached/);
    }
    expect(double.requests).toHaveLength(0);
  });

  it('gives up at the deadline when the provider hangs', async () => {
    double.setMode('hang');
    const sender = new TwilioSmsSender({
      timeoutMs: 300,
      userAgent: 'test',
      post: makeProviderPost({ allowPrivate: true }),
    });
    const started = Date.now();
    const error = await sender
      .send({ channel: channel(double.baseUrl), message: sms, deadline: Date.now() + 5000 })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('Twilio did not answer in time');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
