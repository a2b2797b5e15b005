import { hostname } from 'node:os';
import { consistently, eventually } from '#test/support/eventually.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * A deployment that does not allow private destinations (as on AWS): one address policy for webhook URLs, SMTP
 * hosts and provider base URLs, at creation by the host's text and at connect time by the resolved address.
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

const LOOPBACK_SPELLINGS = ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', '::ffff:7f00:1', '::127.0.0.1'];
const OTHER_REFUSED = ['[::1]', 'localhost', 'mail.localhost', '169.254.169.254', '10.0.0.25', '[fd00:ec2::254]'];

describe('private destinations refused where they are not allowed', () => {
  it('refuses SMTP hosts that are loopback, private or metadata addresses in any spelling', async () => {
    const { projectId } = await svc.newProject();
    for (const host of [...LOOPBACK_SPELLINGS, ...OTHER_REFUSED]) {
      const res = await svc.admin('POST', `/projects/${projectId}/channels`, {
        type: 'email',
        name: 'Mail',
        address: 'news@example.com',
        provider: { kind: 'smtp', host, port: 587 },
      });
      expect(res.status, host).toBe(400);
      expect(res.body.error, host).toBe('VALIDATION_ERROR');
      expect(
        res.body.details.map((d: any) => d.path),
        host,
      ).toEqual(['provider.host']);
    }
  });

  it('takes only the mail ports for SMTP', async () => {
    const { projectId } = await svc.newProject();
    const channel = (port: number) =>
      svc.admin('POST', `/projects/${projectId}/channels`, {
        type: 'email',
        name: 'Mail',
        address: 'news@example.com',
        provider: { kind: 'smtp', host: 'smtp.example.com', port },
      });
    for (const port of [6379, 80, 22, 3306]) {
      const res = await channel(port);
      expect(res.status, String(port)).toBe(400);
      expect(res.body.details, String(port)).toEqual([
        { path: 'provider.port', message: 'Allowed SMTP ports: 25, 465, 587, 2525', code: 'custom' },
      ]);
    }
    for (const port of [25, 465, 587, 2525]) expect((await channel(port)).status, String(port)).toBe(201);
  });

  it('refuses webhook URLs on loopback, private or metadata addresses at create and PATCH', async () => {
    const { projectId } = await svc.newProject();
    const hosts = [...LOOPBACK_SPELLINGS.map((h) => (h.includes(':') ? `[${h}]` : h)), ...OTHER_REFUSED];
    for (const host of hosts) {
      const res = await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        url: `https://${host}/hook`,
      });
      expect(res.status, host).toBe(400);
      expect(res.body.error, host).toBe('VALIDATION_ERROR');
      expect(
        res.body.details.map((d: any) => d.path),
        host,
      ).toEqual(['url']);
    }
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'https://hooks.example.com/in',
    });
    expect(created.status).toBe(201);
    const patched = await svc.admin('PATCH', `/projects/${projectId}/integrations/${created.body.integrationId}`, {
      url: 'https://169.254.169.254/latest/meta-data/',
    });
    expect(patched.status).toBe(400);
    expect(patched.body.details.map((d: any) => d.path)).toEqual(['url']);
  });

  it('fails a delivery to a name that resolves to loopback after one refused attempt, without retries', async () => {
    const { projectId } = await svc.newProject();
    const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'Sandbox',
      address: '+5511999990000',
    });
    // This machine's own name resolves to one of its own addresses: a name passes creation, its address does not.
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: `https://${hostname()}:9/hook`,
    });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const event = await svc.admin('POST', `/projects/${projectId}/events`, {
      channelId: channel.body.channelId,
      type: 'message.sent',
      data: { messageId: 'msg_1' },
    });
    expect(event.status).toBe(202);
    const deliveries = async () =>
      (await svc.admin('GET', `/projects/${projectId}/integrations/${webhook.body.integrationId}/deliveries`)).body
        .items as any[];
    const items = await eventually(async () => {
      const listed = await deliveries();
      return listed[0]?.status === 'failed' ? listed : undefined;
    }, 15_000);
    expect(items[0]).toMatchObject({ status: 'failed' });
    expect(items[0].attempts).toHaveLength(1);
    expect(items[0].attempts[0].error).toMatch(/resolves to a (loopback|private) address; refused/);
    // The schedule would have retried within 0.6 s.
    await consistently(async () => expect((await deliveries())[0].attempts).toHaveLength(1), 1_000);
  });
});
