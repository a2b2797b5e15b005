import { describe, expect, it } from 'vitest';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';

function gate(overrides: Partial<ConstructorParameters<typeof EndpointGate>[0]> = {}) {
  let clock = 1_000_000;
  const g = new EndpointGate({
    maxInFlight: 2,
    slowAfterMs: 1000,
    maxWaitMs: 2000,
    attemptTimeoutMs: 15_000,
    now: () => clock,
    ...overrides,
  });
  return { g, advance: (ms: number) => (clock += ms) };
}

describe('EndpointGate', () => {
  it('admits up to the limit per destination; other destinations are independent', async () => {
    const { g } = gate({ maxWaitMs: 0 });
    const a1 = await g.enter('https://a');
    const a2 = await g.enter('https://a');
    const a3 = await g.enter('https://a');
    const b1 = await g.enter('https://b');
    expect([a1.admitted, a2.admitted, a3.admitted, b1.admitted]).toEqual([true, true, false, true]);
    expect(a3).toMatchObject({ reason: 'busy' });
    if (a1.admitted) a1.release('success');
    expect((await g.enter('https://a')).admitted).toBe(true);
  });

  it('lets a job wait for a place while the destination answers quickly', async () => {
    const { g } = gate();
    const first = await g.enter('https://a');
    await g.enter('https://a');
    const waiting = g.enter('https://a');
    setTimeout(() => first.admitted && first.release('success'), 10);
    expect((await waiting).admitted).toBe(true);
  });

  it('puts a job back at once when the attempts in flight are older than slowAfterMs', async () => {
    const { g, advance } = gate();
    await g.enter('https://a');
    await g.enter('https://a');
    advance(1500);
    const started = Date.now();
    const decision = await g.enter('https://a');
    // Back when the oldest attempt must have answered or timed out (15 s after it started).
    expect(decision).toMatchObject({ admitted: false, reason: 'stuck', retryAfterMs: 13_500 });
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('opens the circuit on a timeout, with a growing cool-down, then lets one probe through', async () => {
    const { g, advance } = gate();
    const attempt = await g.enter('https://a');
    if (attempt.admitted) attempt.release('timeout');
    expect(await g.enter('https://a')).toMatchObject({ admitted: false, reason: 'circuit-open', retryAfterMs: 5000 });
    advance(5000);
    const probe = await g.enter('https://a');
    expect(probe.admitted).toBe(true);
    expect(await g.enter('https://a')).toMatchObject({ admitted: false, reason: 'stuck' });
    if (probe.admitted) probe.release('timeout');
    expect(await g.enter('https://a')).toMatchObject({ reason: 'circuit-open', retryAfterMs: 10_000 });
    advance(10_000);
    const recovered = await g.enter('https://a');
    if (recovered.admitted) recovered.release('http-error'); // any answer closes it
    expect((await g.enter('https://a')).admitted).toBe(true);
    expect((await g.enter('https://a')).admitted).toBe(true);
  });

  it('caps the cool-down', async () => {
    const { g, advance } = gate({ maxCooldownMs: 20_000 });
    for (let i = 0; i < 10; i++) {
      const d = await g.enter('https://a');
      if (d.admitted) d.release('timeout');
      else advance(d.retryAfterMs);
    }
    const d = await g.enter('https://a');
    expect(d.admitted ? 0 : d.retryAfterMs).toBeLessThanOrEqual(20_000);
  });
});
