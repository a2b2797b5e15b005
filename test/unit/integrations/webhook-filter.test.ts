import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  filterProblems,
  MAX_FILTER_CONDITIONS,
  matchesFilter,
  valueAt,
  type WebhookFilter,
} from '#shared/contract/webhook-filter.ts';
import { integrationRoutes } from '#shared/integrations/api/admin-routes.ts';

const envelope = {
  id: 'evt_1',
  type: 'message.received',
  timestamp: '2026-11-21T10:00:00.000Z',
  projectId: 'prj_1',
  companyId: 1042,
  channel: { id: 'ch_1', type: 'whatsapp', address: '+5511999990000' },
  data: {
    from: '+5511988887777',
    status: 'delivered',
    count: 3,
    urgent: false,
    note: null,
    media: [{ contentType: 'image/jpeg' }],
  },
};

const filter = (...all: WebhookFilter['all']): WebhookFilter => ({ all });

describe('webhook filter: evaluation', () => {
  it('eq compares strictly, in against a list, prefix on strings, exists for present and not null', () => {
    const cases: [WebhookFilter['all'][number], boolean][] = [
      [{ field: 'channel.type', op: 'eq', value: 'whatsapp' }, true],
      [{ field: 'channel.type', op: 'eq', value: 'sms' }, false],
      [{ field: 'data.count', op: 'eq', value: 3 }, true],
      [{ field: 'data.count', op: 'eq', value: '3' }, false],
      [{ field: 'data.urgent', op: 'eq', value: false }, true],
      [{ field: 'data.note', op: 'eq', value: null }, true],
      [{ field: 'data.missing', op: 'eq', value: null }, false],
      [{ field: 'data.status', op: 'in', value: ['read', 'delivered'] }, true],
      [{ field: 'data.status', op: 'in', value: ['read'] }, false],
      [{ field: 'data.from', op: 'prefix', value: '+55' }, true],
      [{ field: 'data.count', op: 'prefix', value: '3' }, false],
      [{ field: 'data.media', op: 'exists' }, true],
      [{ field: 'data.media.0.contentType', op: 'eq', value: 'image/jpeg' }, true],
      [{ field: 'data.media.1.contentType', op: 'exists' }, false],
      [{ field: 'data.note', op: 'exists' }, false],
      [{ field: 'data.note', op: 'exists', value: false }, true],
      [{ field: 'data.missing', op: 'exists', value: false }, true],
      [{ field: 'data.media', op: 'exists', value: false }, false],
    ];
    for (const [condition, expected] of cases)
      expect(matchesFilter(filter(condition), envelope), JSON.stringify(condition)).toBe(expected);
  });

  it('needs every condition; no filter passes everything', () => {
    expect(
      matchesFilter(
        filter(
          { field: 'type', op: 'eq', value: 'message.received' },
          { field: 'data.from', op: 'prefix', value: '+1' },
        ),
        envelope,
      ),
    ).toBe(false);
    expect(matchesFilter(null, envelope)).toBe(true);
  });

  it('never walks into a prototype', () => {
    expect(valueAt(envelope, 'data.constructor')).toBeUndefined();
    expect(valueAt(envelope, 'data.__proto__')).toBeUndefined();
    expect(valueAt(envelope, 'data.media.length')).toBeUndefined();
    expect(matchesFilter(filter({ field: 'data.toString', op: 'exists' }), envelope)).toBe(false);
  });
});

describe('webhook filter: validation', () => {
  it('reports each problem where it is', () => {
    expect(filterProblems(filter({ field: 'channel.type', op: 'eq', value: 'sms' }))).toEqual([]);
    expect(
      filterProblems({
        all: [
          { field: 'headers.x', op: 'eq', value: 1 },
          { field: 'data.a', op: 'in', value: [] },
          { field: 'data.b', op: 'prefix', value: '' },
          { field: 'data.c', op: 'exists', value: 1 },
          { field: 'data.d', op: 'eq', value: { nested: true } },
          { field: 'data.e', op: 'matches', value: 'x' },
          { field: 'data.f', op: 'eq', value: 1, extra: true },
        ],
        any: [],
      }).map((p) => p.path.join('.')),
    ).toEqual([
      'any',
      'all.0.field',
      'all.1.value',
      'all.2.value',
      'all.3.value',
      'all.4.value',
      'all.5.op',
      'all.6.extra',
    ]);
    expect(filterProblems({ all: [] })[0]!.path).toEqual(['all']);
    expect(filterProblems('x')[0]!.path).toEqual([]);
  });

  it('the API accepts a filter exactly when it has no problems, for any JSON', () => {
    const body = integrationRoutes.patchIntegration.body as { safeParse(v: unknown): { success: boolean } };
    const field = fc.oneof(
      fc.constantFrom('type', 'channel.type', 'data.from', 'data.media.0.url', 'data..x', 'body.x', ''),
      fc.string({ maxLength: 20 }),
    );
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 5 }));
    const condition = fc.record(
      { field, op: fc.constantFrom('eq', 'in', 'prefix', 'exists', 'nope'), value },
      { requiredKeys: ['field', 'op'] },
    );
    fc.assert(
      fc.property(fc.array(condition, { maxLength: MAX_FILTER_CONDITIONS + 2 }), (all) => {
        const problems = filterProblems({ all });
        const parsed = body.safeParse({ filter: { all } });
        expect(parsed.success).toBe(problems.length === 0);
      }),
      { numRuns: 500 },
    );
  });

  it('stops early on a hostile filter: many conditions, each with a huge list and a long field', () => {
    const huge = Array.from({ length: 200_000 }, (_, i) => `v${i}`);
    const all = Array.from({ length: 200_000 }, () => ({
      field: `data.${'x.'.repeat(5_000)}y`,
      op: 'in',
      value: huge,
    }));
    const body = integrationRoutes.patchIntegration.body as { safeParse(v: unknown): { success: boolean } };
    const started = performance.now();
    expect(filterProblems({ all }).map((p) => p.path)).toEqual([['all']]);
    expect(body.safeParse({ filter: { all } }).success).toBe(false);
    const one = [{ field: 'data.x', op: 'in', value: huge }];
    expect(filterProblems({ all: one }).map((p) => p.path.join('.'))).toEqual(['all.0.value']);
    expect(body.safeParse({ filter: { all: one } }).success).toBe(false);
    // Linear in what it looks at, which is bounded: far under what walking 200,000 x 200,000 values would take.
    expect(performance.now() - started).toBeLessThan(500);
  });
});
