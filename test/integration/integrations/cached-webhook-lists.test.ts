import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CachedWebhookLists,
  DynamoIntegrationStore,
  WEBHOOK_CHANGE_WINDOW_MS,
  type WebhookIntegration,
} from '#shared/integrations/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * The fan-out's remembered webhook lists against dynalite, with two function instances (each its own store and
 * list) sharing one table and one clock: a change made through either instance is seen by the other's next list,
 * and the project's partition is queried again only after a change.
 */
let table: DynamoTable;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ table, close } = await startTestTable());
});
afterAll(async () => close?.());

const secretBox = createSecretBox(randomBytes(32).toString('base64'));
let clock = Date.parse('2026-12-02T05:00:00Z');
const now = () => new Date(clock);

/** A store that counts its Queries of the project's webhooks. */
class CountingStore extends DynamoIntegrationStore {
  queries = 0;
  override async webhookIntegrations(projectId: string) {
    this.queries++;
    return super.webhookIntegrations(projectId);
  }
}

function instance() {
  const store = new CountingStore(table, secretBox, now);
  return { store, lists: new CachedWebhookLists(store, now) };
}

let n = 0;
function webhook(projectId: string, fields: Partial<WebhookIntegration> = {}): WebhookIntegration {
  const at = now().toISOString();
  return {
    product: 'webhook',
    integrationId: `int_${String(++n).padStart(20, '0')}`,
    projectId,
    scope: 'general',
    channelId: null,
    url: 'https://receiver.example/hook',
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
    ...fields,
  };
}

/** Past the change window of every change so far, and past the clocks' room. */
const settle = () => {
  clock += WEBHOOK_CHANGE_WINDOW_MS + 2_000;
};

const enabledIds = async (lists: CachedWebhookLists, projectId: string) =>
  (await lists.listWebhooks(projectId)).filter((w) => w.enabled).map((w) => w.integrationId);

describe('remembered webhook lists', () => {
  it('reuses a list until a webhook changes, and then reads it afresh', async () => {
    const projectId = 'prj_cachedlists000000001';
    const a = instance();
    const b = instance();
    const first = webhook(projectId);
    await b.store.create(first);
    settle();
    expect(await enabledIds(a.lists, projectId)).toEqual([first.integrationId]);
    expect(await enabledIds(a.lists, projectId)).toEqual([first.integrationId]);
    expect(a.store.queries).toBe(1);

    // Disabled by another instance (a 410 seen by a deliver worker): the next list anywhere leaves it out.
    expect(await b.store.disableWebhook(projectId, first.integrationId, 'gone')).toBe(true);
    expect(await enabledIds(a.lists, projectId)).toEqual([]);
    expect(a.store.queries).toBe(2);

    // Created elsewhere: in the next list at once.
    const second = webhook(projectId, { scope: 'channel', channelId: 'ch_00000000000000000001' });
    await b.store.create(second);
    expect(await enabledIds(a.lists, projectId)).toEqual([second.integrationId]);

    // Deleted elsewhere: gone from the next list.
    await b.store.delete(projectId, second.integrationId);
    expect(await a.lists.listWebhooks(projectId)).toHaveLength(1);
    expect(await enabledIds(a.lists, projectId)).toEqual([]);

    // Once the changes are long landed, the list is remembered again.
    settle();
    const queries = a.store.queries;
    await a.lists.listWebhooks(projectId);
    await a.lists.listWebhooks(projectId);
    await a.lists.listWebhooks(projectId);
    expect(a.store.queries).toBe(queries + 1);
  });

  it('reads afresh while a change may still be landing, and sees it when it lands', async () => {
    const projectId = 'prj_cachedlists000000002';
    const a = instance();
    const hook = webhook(projectId);
    await a.store.create(hook);
    settle();
    await a.lists.listWebhooks(projectId);
    // A PATCH on an instance whose write of the webhook itself is held back after its marker is written (a slow
    // write): a list read meanwhile still has the webhook enabled, and is not kept as if it held the change.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let markerWritten!: () => void;
    const marked = new Promise<void>((r) => {
      markerWritten = r;
    });
    const slowTable: DynamoTable = {
      ...table,
      client: new Proxy(table.client, {
        get(target, key, receiver) {
          if (key !== 'send') return Reflect.get(target, key, receiver);
          return async (command: { input: { Key?: { sk?: string } } }) => {
            if (command.input.Key?.sk?.startsWith('INT#')) {
              markerWritten();
              await held;
            }
            return target.send(command as never);
          };
        },
      }),
    };
    const slow = new DynamoIntegrationStore(slowTable, secretBox, now);
    const patched = slow.update({ ...hook, enabled: false, disabledReason: 'manual', version: 2 });
    await marked;
    clock += 1_000;
    expect(await enabledIds(a.lists, projectId)).toEqual([hook.integrationId]);
    release();
    expect(await patched).toBe(true);
    clock += 1_000;
    expect(await enabledIds(a.lists, projectId)).toEqual([]);
  });

  it('keeps projects apart', async () => {
    const a = instance();
    const b = instance();
    const one = webhook('prj_cachedlists000000003');
    const two = webhook('prj_cachedlists000000004');
    await b.store.create(one);
    await b.store.create(two);
    settle();
    expect(await enabledIds(a.lists, one.projectId)).toEqual([one.integrationId]);
    expect(await enabledIds(a.lists, two.projectId)).toEqual([two.integrationId]);
    await b.store.disableWebhook(one.projectId, one.integrationId, 'gone');
    const queries = a.store.queries;
    expect(await enabledIds(a.lists, two.projectId)).toEqual([two.integrationId]);
    expect(a.store.queries).toBe(queries);
    expect(await enabledIds(a.lists, one.projectId)).toEqual([]);
  });
});
