import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_SOCKET_MS, makeProviderPost } from '#shared/messaging/adapters/provider-client.ts';
import { TwilioSmsSender } from '#shared/messaging/adapters/twilio-sms-sender.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import { type DepartureGate, LateDepartureError, ProviderError } from '#shared/messaging/providers.ts';
import { consistently } from '#test/support/eventually.ts';
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

  /**
   * A kept-alive connection the server closed just before this process noticed takes the next request and resets it:
   * the provider never gets it and the message fails. Measured against a Node server closing idle connections, with
   * sends spaced just past its close: 22 of 240 reset before idle connections were closed early, none after.
   */
  describe('idle connections closed before the server closes them', () => {
    async function countingServer(keepAliveTimeout: number) {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM1"}'));
      });
      // 0: no idle close and no `Keep-Alive: timeout=N` hint in the answers.
      server.keepAliveTimeout = keepAliveTimeout;
      let connections = 0;
      server.on('connection', () => connections++);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
      return { url, connections: () => connections, close: () => new Promise((r) => server.close(r)) };
    }
    const postTwice = async (url: string, idleMs: number) => {
      const post = makeProviderPost({ allowPrivate: true });
      const request = { headers: {}, body: 'x', timeoutMs: 2000 };
      expect((await post(url, request)).status).toBe(201);
      await new Promise((r) => setTimeout(r, idleMs));
      expect((await post(url, request)).status).toBe(201);
    };

    it("honours the server's Keep-Alive hint a second early", async () => {
      // Node's server answers `Keep-Alive: timeout=2` and closes an idle connection after 2 s (plus its own margin).
      const server = await countingServer(2000);
      try {
        await postTwice(server.url, 1300);
        expect(server.connections()).toBe(2);
      } finally {
        await server.close();
      }
    });

    it('closes an idle connection itself when the server gives no hint', async () => {
      const server = await countingServer(0);
      try {
        await postTwice(server.url, IDLE_SOCKET_MS + 300);
        expect(server.connections()).toBe(2);
      } finally {
        await server.close();
      }
    }, 10_000);
  });

  /**
   * A paced send's slot is asked once more as its request leaves (a stall between the slot and the wire would put it
   * beside the slot's next send): late, it waits for the slot again on its connection; given up, nothing leaves.
   */
  describe("a paced send's departure", () => {
    const sender = () =>
      new TwilioSmsSender({ timeoutMs: 2000, userAgent: 'test', post: makeProviderPost({ allowPrivate: true }) });

    /** A gate answering `answers` in turn (then on time), its slot taken again in 150 ms when late. */
    const gate = (answers: boolean[]) => {
      const asked: number[] = [];
      const retaken: number[] = [];
      const departure: DepartureGate = {
        onTime: () => answers[asked.push(Date.now()) - 1] ?? true,
        again: async () => {
          await new Promise((r) => setTimeout(r, 150));
          retaken.push(Date.now());
        },
      };
      return { departure, asked, retaken };
    };

    // Asked before the request and again at the write: late at either, the send waits for its slot to be taken again
    // and only then is the request written (at the write, a new connection just up is held meanwhile).
    it.each([
      ['before the request', [false]],
      ['at the write (a new connection just up)', [true, false]],
    ])('found late %s, writes only once the slot was taken again', async (_when, answers) => {
      double.reset();
      const { departure, asked, retaken } = gate(answers);
      const sent = await sender().send({
        channel: channel(double.baseUrl),
        message: sms,
        deadline: Date.now() + 5000,
        departure,
      });
      expect(sent).toEqual({ providerMessageIds: ['SM1'] });
      // One late answer, then on time at each ask left: three asks in all.
      expect(asked).toHaveLength(3);
      expect(retaken).toHaveLength(1);
      expect(double.requests).toHaveLength(1);
      expect(double.requests[0]!.receivedAt).toBeGreaterThanOrEqual(retaken[0]!);
    });

    it('sends nothing when the slot gives up, and says so rather than blame the provider', async () => {
      double.reset();
      const departure: DepartureGate = {
        onTime: () => false,
        again: async () => {
          throw new LateDepartureError('late every time');
        },
      };
      const error = await sender()
        .send({ channel: channel(double.baseUrl), message: sms, deadline: Date.now() + 5000, departure })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LateDepartureError);
      await consistently(() => expect(double.requests).toHaveLength(0), 300);
    });

    it('gives the send back, not fails it, when the deadline passes while it waits for its slot', async () => {
      double.reset();
      const departure: DepartureGate = { onTime: () => false, again: () => new Promise(() => {}) };
      const quick = new TwilioSmsSender({
        timeoutMs: 300,
        userAgent: 'test',
        post: makeProviderPost({ allowPrivate: true }),
      });
      const error = await quick
        .send({ channel: channel(double.baseUrl), message: sms, deadline: Date.now() + 5000, departure })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LateDepartureError);
      expect(double.requests).toHaveLength(0);
    });

    it('still fails as the provider when its connection is refused', async () => {
      const departure: DepartureGate = { onTime: () => true, again: async () => {} };
      const error = await sender()
        .send({ channel: channel('http://127.0.0.1:9'), message: sms, deadline: Date.now() + 5000, departure })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as Error).message).toBe('Twilio could not be reached');
    });
  });
});
