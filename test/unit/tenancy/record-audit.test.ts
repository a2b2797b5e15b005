import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '#shared/tenancy/audit.ts';
import { makeRecordAudit } from '#shared/tenancy/record-audit.ts';

function setup() {
  const written: { projectId: string; entry: AuditEntry }[] = [];
  const record = makeRecordAudit({
    audit: {
      append: async (projectId, entry) => void written.push({ projectId, entry }),
      list: async () => ({ items: [] }),
    },
    now: () => new Date('2026-12-02T10:00:00Z'),
  });
  return { record, written };
}

describe('an audit entry', () => {
  it('names the created id as target and lists nothing of a secret the answer showed', async () => {
    const { record } = setup();
    const entry = await record({
      actor: { kind: 'key', id: 'key_1', projectId: 'prj_1', role: 'developer' },
      projectId: 'prj_1',
      method: 'POST',
      template: '/admin/v1/projects/{projectId}/integrations',
      params: { projectId: 'prj_1' },
      requestId: 'r1',
      after: { integrationId: 'int_1', token: 'sbc_secret', signingSecret: 'whsec_x' },
    });
    expect(entry).toEqual({
      id: expect.stringMatching(/^aud_/),
      at: '2026-12-02T10:00:00.000Z',
      actor: { kind: 'key', id: 'key_1' },
      action: 'POST /admin/v1/projects/{projectId}/integrations',
      target: 'int_1',
      requestId: 'r1',
    });
  });

  it('lists each changed field before and after, secrets never, flags about them yes', async () => {
    const { record, written } = setup();
    await record({
      actor: { kind: 'admin' },
      projectId: 'prj_1',
      method: 'PATCH',
      template: '/admin/v1/projects/{projectId}/integrations/{integrationId}',
      params: { projectId: 'prj_1', integrationId: 'int_1' },
      requestId: 'r2',
      before: { url: 'https://a', enabled: true, hasBearerToken: false, bearerToken: 'old', updatedAt: '1' },
      after: { url: 'https://b', enabled: true, hasBearerToken: true, bearerToken: 'new', updatedAt: '2' },
    });
    expect(written[0]!.entry).toMatchObject({
      actor: { kind: 'admin' },
      target: 'int_1',
      changes: { url: ['https://a', 'https://b'], hasBearerToken: [false, true] },
    });
    expect(JSON.stringify(written[0])).not.toMatch(/old|new/);
  });
});
