import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { checkEventData, EVENT_CATALOG, envelopeSchemaOf, exampleEnvelopeOf } from '#shared/events/event-catalog.ts';
import { buildEnvelope, newEventId } from '#shared/events/envelope.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/events/event-types.ts';
import * as z from '#shared/kernel/validation/zod.ts';

describe('event catalog', () => {
  it('has an entry for every event type, whose example is a valid envelope of that type', () => {
    expect(Object.keys(EVENT_CATALOG).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(z.safeParse(envelopeSchemaOf(type), exampleEnvelopeOf(type)).success, type).toBe(true);
      expect(checkEventData(type, EVENT_CATALOG[type].example), type).toEqual([]);
    }
  });

  it('describes the envelope the publisher builds, and tells a data of the wrong shape', () => {
    const envelope = buildEnvelope(
      {
        type: 'webhook.test',
        projectId: 'prj_1',
        companyId: 7,
        channel: null,
        data: { integrationId: 'int_1', message: 'hi' },
      },
      newEventId(),
      new Date(),
    );
    expect(z.safeParse(envelopeSchemaOf('webhook.test'), JSON.parse(JSON.stringify(envelope))).success).toBe(true);
    expect(checkEventData('message.delivered', { messageId: 'msg_1' })).not.toEqual([]);
    expect(z.safeParse(envelopeSchemaOf('message.sent'), { ...envelope, type: 'message.sent' }).success).toBe(false);
  });
});

describe('OpenAPI webhooks section', () => {
  const { document } = buildOpenApiDocument({ adminRoutes: [], publicRoutes: [] });
  const webhooks = document.webhooks as Record<string, any>;

  it('has one entry per event type: the envelope with that type and its data schema, and an example', () => {
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      const media = webhooks[type].post.requestBody.content['application/json'];
      expect(media.schema.properties.type).toMatchObject({ const: type });
      expect(media.schema.required).toEqual(
        expect.arrayContaining(['id', 'type', 'timestamp', 'projectId', 'companyId', 'channel', 'data']),
      );
      expect(media.schema.properties.data).toBeDefined();
      expect(media.example.type).toBe(type);
      expect(webhooks[type].post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
    const sentData = webhooks['message.sent'].post.requestBody.content['application/json'].schema.properties.data;
    expect(sentData.required).toEqual(expect.arrayContaining(['messageId', 'status', 'sentAt']));
  });

  it('shows an email message.received’s authentication: spf, dkim and dmarc, each pass, fail, none or unknown', () => {
    const media = webhooks['message.received'].post.requestBody.content['application/json'];
    const resolve = (schema: any): any =>
      schema?.$ref ? resolve((document.components as any)?.schemas?.[schema.$ref.split('/').pop()]) : schema;
    const authentication = resolve(resolve(media.schema.properties.data).properties.authentication);
    expect(authentication.required).toEqual(['spf', 'dkim', 'dmarc']);
    for (const check of ['spf', 'dkim', 'dmarc'])
      expect(resolve(authentication.properties[check]).enum).toEqual(['pass', 'fail', 'none', 'unknown']);
    expect(authentication.description).toMatch(/GRAY/);
    const data = {
      ...EVENT_CATALOG['message.received'].example,
      authentication: { spf: 'fail', dkim: 'none', dmarc: 'unknown' },
    };
    expect(checkEventData('message.received', data)).toEqual([]);
    expect(checkEventData('message.received', { ...data, authentication: { spf: 'softfail' } })).not.toEqual([]);
  });
});
