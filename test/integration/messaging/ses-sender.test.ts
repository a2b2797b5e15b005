import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SesEmailSender } from '#shared/messaging/adapters/ses-email-sender.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import { type DepartureGate, ProviderError } from '#shared/messaging/providers.ts';
import { startHttpDouble } from '../../e2e/send-doubles.ts';

/**
 * The SES sender against an HTTP double that answers as SES v2 does: what reaches the wire for one send. A retry
 * inside the SDK would be a second request for one message, outside a paced send's slot and, after a reset, maybe a
 * second copy of the mail.
 */
let double: Awaited<ReturnType<typeof startHttpDouble>>;
let answer: { status: number; body: unknown } = { status: 200, body: { MessageId: 'ses-1' } };
beforeAll(async () => {
  double = await startHttpDouble({ reply: () => answer });
});
afterAll(async () => double?.close());

const channel: Channel = {
  channelId: 'ch_1',
  projectId: 'prj_1',
  companyId: 1,
  type: 'email',
  name: 'x',
  address: 'news@example.com',
  provider: { kind: 'ses', region: 'us-east-1' },
  createdAt: new Date().toISOString(),
};
const mail = {
  type: 'email' as const,
  payload: { to: ['ana@example.org'], subject: 'Hello', body: 'hi' },
};
const sender = () => new SesEmailSender({ timeoutMs: 2000, region: 'us-east-1', endpoint: double.baseUrl });

describe('SES sender', () => {
  it("sends once and answers SES's message id, a paced send's gate asked first", async () => {
    double.reset();
    answer = { status: 200, body: { MessageId: 'ses-1' } };
    let asked = 0;
    const departure: DepartureGate = { onTime: () => ++asked > 0, again: async () => {} };
    await expect(
      sender().send({ channel, message: mail as never, deadline: Date.now() + 5000, departure }),
    ).resolves.toEqual({ providerMessageIds: ['ses-1'] });
    expect(asked).toBe(1);
    expect(double.requests).toHaveLength(1);
    expect(double.requests[0]!.path).toBe('/v2/email/outbound-emails');
  });

  it('makes one request when SES fails or throttles: the service retries a throttle itself, later, through its slot', async () => {
    for (const [status, type, rateLimited] of [
      [500, 'InternalFailure', false],
      [429, 'TooManyRequestsException', true],
    ] as const) {
      double.reset();
      answer = { status, body: { __type: type, message: 'no' } };
      const error = await sender()
        .send({ channel, message: mail as never, deadline: Date.now() + 5000 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).rateLimited).toBe(rateLimited);
      expect(double.requests).toHaveLength(1);
    }
  });
});
