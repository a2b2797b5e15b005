import { describe, expect, it } from 'vitest';
import { claimGeneralSlot } from '#shared/integrations/general-slot.ts';
import type { Integration, IntegrationStore } from '#shared/integrations/integration.ts';

/** The slot as the store keeps it (one per project), and the records a holder is looked up in. */
function slotStore(records: Partial<Integration>[] = []) {
  let slot: { integrationId: string; claimedAt: number } | undefined;
  const store = {
    async generalWebhookHolder() {
      return slot;
    },
    async claimGeneralWebhook(_projectId: string, integrationId: string, staleHolder?: string) {
      if (slot && slot.integrationId !== integrationId && slot.integrationId !== staleHolder) return false;
      slot = { integrationId, claimedAt: now.getTime() };
      return true;
    },
    async get(_projectId: string, integrationId: string) {
      return records.find((r) => r.integrationId === integrationId) as Integration | undefined;
    },
  } as Pick<IntegrationStore, 'generalWebhookHolder' | 'claimGeneralWebhook' | 'get'> as IntegrationStore;
  let now = new Date('2026-12-02T10:00:00Z');
  return {
    store,
    clock: () => now,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
    holder: () => slot?.integrationId,
  };
}

const generalWebhook = (integrationId: string, enabled: boolean): Partial<Integration> => ({
  product: 'webhook',
  integrationId,
  scope: 'general',
  enabled,
});

describe('the one enabled general webhook of a project', () => {
  it('is taken when free, and refused (409) while an enabled general webhook holds it', async () => {
    const s = slotStore([generalWebhook('int_a', true)]);
    await claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_a');
    await expect(claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_b')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(s.holder()).toBe('int_a');
  });

  it('is taken over from a holder that is disabled, or no longer general', async () => {
    for (const stale of [generalWebhook('int_a', false), { ...generalWebhook('int_a', true), scope: 'channel' }]) {
      const s = slotStore([stale as Partial<Integration>]);
      await claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_a');
      await claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_b');
      expect(s.holder()).toBe('int_b');
    }
  });

  it('is not stolen from a create still in flight, and is taken over once that create has had its time', async () => {
    // The create claimed the slot and has not written its integration yet (or crashed before it did).
    const s = slotStore();
    await claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_a');
    s.advance(59_000);
    await expect(claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_b')).rejects.toMatchObject({ code: 'CONFLICT' });
    s.advance(2_000);
    await claimGeneralSlot(s.store, s.clock, 'prj_1', 'int_b');
    expect(s.holder()).toBe('int_b');
  });
});
