import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { DynamoTokenStore } from '#shared/auth/index.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { localDocumentClient } from '#test/support/dynamo.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

let svc: ServiceClient;
let doc: DynamoDBDocumentClient;
beforeAll(async () => {
  svc = await sharedService();
  doc = localDocumentClient(svc.emulators.dynamoEndpoint);
});
afterAll(async () => {
  doc?.destroy();
  await svc?.close();
});

/** What the send endpoint would find for a token: the custom grant in the token store, or nothing. */
const grantOf = async (token: string) =>
  new DynamoTokenStore({ client: doc, tableName: svc.emulators.tableName }).find(hashToken(token));

async function setup() {
  const { projectId } = await svc.newProject();
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'Main',
    address: '+5511999990000',
  });
  expect(channel.status).toBe(201);
  return { projectId, channelId: channel.body.channelId as string };
}

function store() {
  // The service's sealing key, as the local runner keeps it under DATA_DIR.
  const key = readFileSync(join(svc.dataDir, 'secrets-key'), 'utf8').trim();
  return new DynamoIntegrationStore({ client: doc, tableName: svc.emulators.tableName }, createSecretBox(key));
}

describe('channels', () => {
  it('creates, lists, tops up and deletes a channel; credentials never come back', async () => {
    const { projectId } = await svc.newProject();
    const created = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'email',
      name: 'Support',
      address: 'support@example.com',
      provider: { kind: 'smtp', host: '127.0.0.1', port: 2525, user: 'u', pass: 'hunter2' },
      credits: 2,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      channelId: expect.stringMatching(/^ch_/),
      type: 'email',
      name: 'Support',
      address: 'support@example.com',
      credits: 2,
    });
    expect(JSON.stringify(created.body)).not.toContain('hunter2');
    const topped = await svc.admin('POST', `/projects/${projectId}/channels/${created.body.channelId}/credits`, {
      amount: 3,
    });
    expect(topped.status).toBe(200);
    expect(topped.body.credits).toBe(5);
    const listed = await svc.admin('GET', `/projects/${projectId}/channels`);
    expect(listed.body.items).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain('hunter2');
    expect((await svc.admin('DELETE', `/projects/${projectId}/channels/${created.body.channelId}`)).status).toBe(204);
    expect((await svc.admin('DELETE', `/projects/${projectId}/channels/${created.body.channelId}`)).status).toBe(404);
    expect((await svc.admin('GET', `/projects/${projectId}/channels`)).body.items).toHaveLength(0);
  });

  it('omits credits for an unmetered channel and rejects a provider of another channel type', async () => {
    const { projectId } = await svc.newProject();
    const unmetered = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'whatsapp',
      name: 'WA',
      address: '5511999990000',
    });
    expect(unmetered.status).toBe(201);
    expect(unmetered.body).not.toHaveProperty('credits');
    expect(unmetered.body.provider).toEqual({ kind: 'sandbox' });
    const wrong = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'sms',
      name: 'x',
      address: '+5511999990000',
      provider: { kind: 'smtp', host: 'smtp.example.com', port: 25 },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details[0].path).toBe('provider.kind');
    const badAddress = await svc.admin('POST', `/projects/${projectId}/channels`, {
      type: 'email',
      name: 'x',
      address: 'not-an-email',
    });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.details).toEqual([expect.objectContaining({ path: 'address' })]);
    expect(
      (await svc.admin('POST', `/projects/prj_nope/channels`, { type: 'sms', name: 'x', address: '+5511999990000' }))
        .status,
    ).toBe(404);
  });
});

describe('custom integrations', () => {
  it('shows the token once and stores only its hash; rotation kills the old token at once', async () => {
    const { projectId, channelId } = await setup();
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      integrationId: expect.stringMatching(/^int_/),
      product: 'custom',
      scope: 'channel',
      channelId,
    });
    const token = created.body.token as string;
    expect(token).toMatch(/^sbc_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const read = await svc.admin('GET', `/projects/${projectId}/integrations/${created.body.integrationId}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(token);
    const list = await svc.admin('GET', `/projects/${projectId}/integrations`);
    expect(JSON.stringify(list.body)).not.toContain(token);
    const item = await doc.send(
      new GetCommand({
        TableName: svc.emulators.tableName,
        Key: { pk: `PRJ#${projectId}`, sk: `INT#${created.body.integrationId}` },
      }),
    );
    expect(JSON.stringify(item.Item)).not.toContain(token);

    expect(await grantOf(token)).toEqual({
      kind: 'custom',
      projectId,
      integrationId: created.body.integrationId,
      channelId,
    });
    const rotated = await svc.admin(
      'POST',
      `/projects/${projectId}/integrations/${created.body.integrationId}/rotate-token`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).toMatch(/^sbc_/);
    expect(await grantOf(token)).toBeUndefined();
    expect(await grantOf(rotated.body.token)).toMatchObject({ kind: 'custom', channelId });

    expect(
      (await svc.admin('DELETE', `/projects/${projectId}/integrations/${created.body.integrationId}`)).status,
    ).toBe(204);
    expect(await grantOf(rotated.body.token)).toBeUndefined();
    expect((await svc.admin('GET', `/projects/${projectId}/integrations/${created.body.integrationId}`)).status).toBe(
      404,
    );
  });

  it('answers 404 CHANNEL_NOT_FOUND for a channel of another project, and lets several tokens share a channel', async () => {
    const a = await setup();
    const b = await setup();
    const foreign = await svc.admin('POST', `/projects/${a.projectId}/integrations`, {
      product: 'custom',
      channelId: b.channelId,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('CHANNEL_NOT_FOUND');
    const one = await svc.admin('POST', `/projects/${a.projectId}/integrations`, {
      product: 'custom',
      channelId: a.channelId,
    });
    const two = await svc.admin('POST', `/projects/${a.projectId}/integrations`, {
      product: 'custom',
      channelId: a.channelId,
    });
    expect(await grantOf(one.body.token)).toMatchObject({
      integrationId: one.body.integrationId,
      channelId: a.channelId,
    });
    expect(await grantOf(two.body.token)).toMatchObject({
      integrationId: two.body.integrationId,
      channelId: a.channelId,
    });
  });
});

describe('webhook integrations', () => {
  it('creates a webhook with a signing secret shown once and stored encrypted', async () => {
    const { projectId } = await setup();
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'https://hooks.example.com/in',
      bearerToken: 'receiver-secret-123',
      eventTypes: ['message.sent'],
    });
    expect(created.status).toBe(201);
    const secret = created.body.signingSecret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(created.body).toMatchObject({
      product: 'webhook',
      scope: 'general',
      channelId: null,
      url: 'https://hooks.example.com/in',
      eventTypes: ['message.sent'],
      enabled: true,
      disabledReason: null,
      hasBearerToken: true,
    });
    expect(created.body).not.toHaveProperty('bearerToken');
    // A Standard Webhooks library accepts the secret.
    const wh = new Webhook(secret);
    const payload = '{"a":1}';
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
    const signature = wh.sign('evt_1', new Date(), payload);
    expect(() => wh.verify(payload, { ...headers, 'webhook-signature': signature })).not.toThrow();

    const item = await doc.send(
      new GetCommand({
        TableName: svc.emulators.tableName,
        Key: { pk: `PRJ#${projectId}`, sk: `INT#${created.body.integrationId}` },
      }),
    );
    const raw = JSON.stringify(item.Item);
    expect(raw).not.toContain(secret.slice(6));
    expect(raw).not.toContain('receiver-secret-123');

    const read = await svc.admin('GET', `/projects/${projectId}/integrations/${created.body.integrationId}`);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(JSON.stringify(read.body)).not.toContain('receiver-secret-123');

    const targets = await store().listWebhooks(projectId);
    expect(targets).toEqual([
      expect.objectContaining({
        integrationId: created.body.integrationId,
        bearerToken: 'receiver-secret-123',
        signingSecrets: [secret],
        enabled: true,
      }),
    ]);
  });

  it('allows one enabled general webhook per project (409), disabled ones do not count', async () => {
    const { projectId, channelId } = await setup();
    const body = { product: 'webhook', scope: 'general', url: 'https://a.example.com/' };
    const first = await svc.admin('POST', `/projects/${projectId}/integrations`, body);
    expect(first.status).toBe(201);
    const second = await svc.admin('POST', `/projects/${projectId}/integrations`, body);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('CONFLICT');
    const scoped = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      ...body,
      scope: 'channel',
      channelId,
    });
    expect(scoped.status).toBe(201);

    const disabled = await svc.admin('PATCH', `/projects/${projectId}/integrations/${first.body.integrationId}`, {
      enabled: false,
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'manual' });
    const third = await svc.admin('POST', `/projects/${projectId}/integrations`, body);
    expect(third.status).toBe(201);
    const reenable = await svc.admin('PATCH', `/projects/${projectId}/integrations/${first.body.integrationId}`, {
      enabled: true,
    });
    expect(reenable.status).toBe(409);

    // The fan-out disabling a webhook (receiver answered 410) frees the slot too.
    expect(await store().disableWebhook(projectId, third.body.integrationId, 'gone')).toBe(true);
    const after = await svc.admin('GET', `/projects/${projectId}/integrations/${third.body.integrationId}`);
    expect(after.body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const reenabled = await svc.admin('PATCH', `/projects/${projectId}/integrations/${first.body.integrationId}`, {
      enabled: true,
    });
    expect(reenabled.status).toBe(200);
    expect(reenabled.body).toMatchObject({ enabled: true, disabledReason: null });

    // Deleting the general webhook frees the slot.
    expect((await svc.admin('DELETE', `/projects/${projectId}/integrations/${first.body.integrationId}`)).status).toBe(
      204,
    );
    expect((await svc.admin('POST', `/projects/${projectId}/integrations`, body)).status).toBe(201);
  });

  it('validates scope, channel, URL and event types', async () => {
    const { projectId } = await setup();
    const other = await setup();
    const post = (body: unknown) => svc.admin('POST', `/projects/${projectId}/integrations`, body);
    const noChannel = await post({ product: 'webhook', scope: 'channel', url: 'https://x.example.com/' });
    expect(noChannel.status).toBe(400);
    expect(noChannel.body.details).toEqual([expect.objectContaining({ path: 'channelId' })]);
    const foreign = await post({
      product: 'webhook',
      scope: 'channel',
      channelId: other.channelId,
      url: 'https://x.example.com/',
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('CHANNEL_NOT_FOUND');
    const badType = await post({
      product: 'webhook',
      scope: 'general',
      url: 'https://x.example.com/',
      eventTypes: ['message.sent', 'nope'],
    });
    expect(badType.status).toBe(400);
    expect(badType.body.details[0].path).toBe('eventTypes.1');
    const badUrl = await post({ product: 'webhook', scope: 'general', url: 'ftp://x.example.com/' });
    expect(badUrl.status).toBe(400);
    // Not a URL at all: one 400 detail on `url`, never a 500 from the credentials check that follows the format one.
    const notUrl = await post({ product: 'webhook', scope: 'general', url: '101' });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.details).toEqual([expect.objectContaining({ path: 'url' })]);
    const withCredentials = await post({ product: 'webhook', scope: 'general', url: 'https://user:pw@x.example.com/' });
    expect(withCredentials.status).toBe(400);
    expect(withCredentials.body.details).toEqual([
      expect.objectContaining({ path: 'url', message: expect.stringContaining('Credentials') }),
    ]);
    const unknown = await post({ product: 'webhook', scope: 'general', url: 'https://x.example.com/', secret: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([expect.objectContaining({ path: 'secret', code: 'unrecognized_keys' })]);
    expect((await svc.admin('GET', `/projects/${projectId}/integrations/int_missing`)).status).toBe(404);
  });

  it('patches url, bearer token and event types', async () => {
    const { projectId } = await setup();
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'https://a.example.com/',
    });
    const id = created.body.integrationId;
    const patched = await svc.admin('PATCH', `/projects/${projectId}/integrations/${id}`, {
      url: 'https://b.example.com/hook',
      bearerToken: 'tok-1',
      eventTypes: ['message.failed', 'message.sent'],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      url: 'https://b.example.com/hook',
      hasBearerToken: true,
      eventTypes: ['message.failed', 'message.sent'],
    });
    expect((await store().getWebhook(projectId, id))?.bearerToken).toBe('tok-1');
    const cleared = await svc.admin('PATCH', `/projects/${projectId}/integrations/${id}`, {
      bearerToken: null,
      eventTypes: null,
    });
    expect(cleared.body).toMatchObject({ hasBearerToken: false, eventTypes: null });
    expect((await store().getWebhook(projectId, id))?.signingSecrets).toEqual([created.body.signingSecret]);
  });

  it('rotates the signing secret and keeps the previous one signing for 24 h', async () => {
    const { projectId } = await setup();
    const created = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: 'https://a.example.com/',
    });
    const id = created.body.integrationId;
    const rotated = await svc.admin('POST', `/projects/${projectId}/integrations/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(created.body.signingSecret);
    const target = await store().getWebhook(projectId, id);
    expect(target?.signingSecrets).toEqual([rotated.body.signingSecret, created.body.signingSecret]);
    const stored = await store().get(projectId, id);
    const previous = stored?.product === 'webhook' ? stored.previousSigningSecret : null;
    const expiresIn = Date.parse(previous!.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);
    // A day later only the new secret signs.
    const later = new DynamoIntegrationStore(
      { client: doc, tableName: svc.emulators.tableName },
      createSecretBox(readFileSync(join(svc.dataDir, 'secrets-key'), 'utf8').trim()),
      () => new Date(Date.now() + 24 * 3600_000 + 1000),
    );
    expect((await later.getWebhook(projectId, id))?.signingSecrets).toEqual([rotated.body.signingSecret]);
    // Rotation applies to the right product only.
    const custom = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'custom',
      channelId: (await svc.admin('GET', `/projects/${projectId}/channels`)).body.items[0].channelId,
    });
    expect(
      (await svc.admin('POST', `/projects/${projectId}/integrations/${custom.body.integrationId}/rotate-secret`))
        .status,
    ).toBe(400);
    expect((await svc.admin('POST', `/projects/${projectId}/integrations/${id}/rotate-token`)).status).toBe(400);
  });
});
