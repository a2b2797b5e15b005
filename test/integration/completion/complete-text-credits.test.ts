import { streamOfReply } from '#test/support/model-stream.ts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asHttpError } from '#shared/http/domain-errors.ts';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import { newId } from '#shared/kernel/ids.ts';
import { ModelError, type ModelProvider, type ModelRequest } from '#shared/models/index.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * The completion use case on the real credit ledger (DynamoDB conditional writes, dynalite): whatever mix of
 * outcomes arrives at once, the balance ends at "start − successes", never more than the balance succeed, 402s are
 * bounded by the balance and the refunds, and no charge is left open (nothing for the sweeper to refund, so nothing
 * refunded twice).
 */
let env: Awaited<ReturnType<typeof startTestTable>>;
let ledger: DynamoCreditLedger;
let complete: ReturnType<typeof makeCompleteText>;
beforeAll(async () => {
  env = await startTestTable();
  ledger = new DynamoCreditLedger(env.table);
  complete = makeCompleteText({
    bots: { get: async () => undefined },
    knowledge: { search: async () => [] },
    credits: ledger,
    models: { resolve: () => ({ provider: model }) },
    maxOutputTokens: 4096,
    log: { warn: () => {}, error: () => {} },
  });
});
afterAll(async () => env?.close());

type Outcome = 'ok' | 'model-error' | 'bad-json' | 'timeout' | 'crash';

const model: ModelProvider = {
  name: 'scripted',
  stream(request: ModelRequest) {
    return streamOfReply(model.generate(request));
  },
  async generate(request: ModelRequest) {
    const outcome = request.prompt as Outcome;
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 5)));
    switch (outcome) {
      case 'ok':
        return { text: '{"ok":true}', model: 'scripted' };
      case 'bad-json':
        return { text: 'not json', model: 'scripted' };
      case 'model-error':
        throw new ModelError('unavailable', 'down');
      case 'crash':
        throw new TypeError('bug');
      case 'timeout':
        return new Promise(() => {});
    }
  },
};

describe('completion charges against DynamoDB', () => {
  it('N concurrent completions with mixed outcomes against a balance of B: balance = B − successes, refunds exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.constantFrom<Outcome>('ok', 'model-error', 'bad-json', 'timeout', 'crash'), { maxLength: 16 }),
        async (allowance, outcomes) => {
          const projectId = newId('prj');
          const at = new Date();
          const results = await Promise.allSettled(
            outcomes.map((outcome) =>
              complete({
                caller: { projectId, monthlyBotCredits: allowance },
                prompt: outcome,
                instructions: 'x',
                responseFormat: 'json',
                timeoutMs: 1_000,
                deadline: Date.now() + (outcome === 'timeout' ? 300 : 10_000),
              }),
            ),
          );
          const statusOf = (r: PromiseSettledResult<unknown>) =>
            r.status === 'fulfilled' ? 200 : ((asHttpError(r.reason) as { status?: number }).status ?? 500);
          const statuses = results.map(statusOf);
          const noCredits = statuses.filter((s) => s === 402).length;
          const successes = statuses.filter((s) => s === 200).length;
          const failures = outcomes.length - noCredits - successes;
          // A 402 means every credit was out at that moment, so at most N − B requests get one. Fewer may: each
          // failure gives its credit back (or, past its deadline before charging, never took one), and a request
          // arriving after that can spend it.
          const seen = JSON.stringify(
            results.map((r, i) => [outcomes[i], statuses[i], r.status === 'rejected' ? String(r.reason) : 'ok']),
          );
          expect(noCredits, seen).toBeLessThanOrEqual(Math.max(0, outcomes.length - allowance));
          expect(noCredits, seen).toBeGreaterThanOrEqual(Math.max(0, outcomes.length - allowance - failures));
          expect(successes).toBeLessThanOrEqual(allowance);
          // Every request that got past the balance check answered as its outcome says.
          results.forEach((_r, i) => {
            if (statuses[i] === 402) return;
            const expected = { ok: 200, 'model-error': 502, 'bad-json': 502, timeout: 504, crash: 500 }[outcomes[i]!];
            expect(statuses[i]).toBe(expected);
          });
          expect(await ledger.available({ projectId, monthlyAllowance: allowance }, at)).toBe(allowance - successes);
        },
      ),
      { numRuns: 20 },
    );
    // No charge was left open: the sweeper finds nothing to refund.
    expect(await ledger.sweep(new Date(Date.now() + 3_600_000))).toBe(0);
  });
});
