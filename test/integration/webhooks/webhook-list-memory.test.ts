import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIntegrationStore } from '#shared/integrations/adapters/dynamo-integration-store.ts';
import type { WebhookIntegration } from '#shared/integrations/integration.ts';
import { putItem, type DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * The fan-out's store remembers a project's webhook list a few seconds (one Query per instance, not per batch):
 * a write through any store of the process forgets it at once; a write it did not see (another instance, on AWS)
 * shows once the few seconds are over. Against dynalite, each Query counted on the wire.
 */
let table: DynamoTable;
let close: () => Promise<void>;
let queries = 0;
beforeAll(async () => {
  ({ table, close } = await startTestTable());
  const send = table.client.send.bind(table.client);
  table.client.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
    if (command.constructor.name === 'QueryCommand') queries++;
    return (send as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof table.client.send;
});
afterAll(async () => close?.());

const secrets = createSecretBox(randomBytes(32).toString('base64'));

function hook(projectId: string, integrationId: string, url: string): WebhookIntegration {
  const at = new Date().toISOString();
  return {
    product: 'webhook',
    integrationId,
    projectId,
    scope: 'general',
    channelId: null,
    url,
    bearerToken: null,
    eventTypes: null,
    rateLimitPerSecond: null,
    enabled: true,
    disabledReason: null,
    ordering: 'none',
    signature: 'v1',
    filter: null,
    signingSecret: `whsec_${randomBytes(24).toString('base64')}`,
    previousSigningSecret: null,
    signingKey: null,
    previousSigningKey: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
}

describe("the fan-out's remembered webhook lists", () => {
  it('one Query per project while remembered; a write of the process forgets it at once', async () => {
    const fanout = new DynamoIntegrationStore(table, secrets, undefined, { rememberWebhookLists: true });
    const admin = new DynamoIntegrationStore(table, secrets);
    await admin.create(hook('prj_mem1', 'int_a', 'https://a.example.com'));
    const before = queries;
    expect((await fanout.listWebhooks('prj_mem1')).map((w) => w.url)).toEqual(['https://a.example.com']);
    await fanout.listWebhooks('prj_mem1');
    await fanout.listWebhooks('prj_mem1');
    expect(queries - before).toBe(1);

    await admin.create(hook('prj_mem1', 'int_b', 'https://b.example.com'));
    expect((await fanout.listWebhooks('prj_mem1')).map((w) => w.url).sort()).toEqual([
      'https://a.example.com',
      'https://b.example.com',
    ]);
    const changed = { ...hook('prj_mem1', 'int_b', 'https://b2.example.com'), version: 2 };
    expect(await admin.update(changed)).toBe(true);
    expect((await fanout.listWebhooks('prj_mem1')).map((w) => w.url).sort()).toEqual([
      'https://a.example.com',
      'https://b2.example.com',
    ]);
    await admin.delete('prj_mem1', 'int_a');
    expect((await fanout.listWebhooks('prj_mem1')).map((w) => w.url)).toEqual(['https://b2.example.com']);
  });

  it('a store not asked to remember reads every time, and sees a write no store of the process made', async () => {
    const plain = new DynamoIntegrationStore(table, secrets);
    const remembering = new DynamoIntegrationStore(table, secrets, undefined, { rememberWebhookLists: true });
    await plain.create(hook('prj_mem2', 'int_c', 'https://c.example.com'));
    expect(await remembering.listWebhooks('prj_mem2')).toHaveLength(1);
    // Written by "another instance": straight to the table, bypassing every store of this process.
    const other = new DynamoIntegrationStore(table, secrets) as unknown as {
      toItem(i: WebhookIntegration): Record<string, unknown>;
    };
    await putItem(table, { Item: other.toItem(hook('prj_mem2', 'int_d', 'https://d.example.com')) });
    expect(await plain.listWebhooks('prj_mem2')).toHaveLength(2);
    expect(await remembering.listWebhooks('prj_mem2')).toHaveLength(1);
  });
});
