import type { AttemptOutcome } from './sender.ts';

/**
 * Keeps one slow or dead receiver from filling the delivery workers: a slow or dead receiver never delays deliveries
 * to other receivers (docs/reference/webhooks.md).
 *
 * A worker slot is held for as long as its batch's slowest attempt. Attempts in a batch run concurrently, so a
 * healthy receiver's delivery never waits for another receiver's answer, but the slot does, up to the 15 s
 * deadline. This gate decides, per destination (URL origin) and per worker process, whether an attempt may start:
 *
 * - at most `maxInFlight` attempts to one destination at a time; a job over the limit waits briefly for a free
 *   place while the destination answers quickly (a busy healthy receiver), and is put back on the queue at once
 *   when the attempts in flight are older than `slowAfterMs` (a receiver that is hanging), to come back when the
 *   oldest of them must have ended;
 * - an attempt that times out opens the destination's circuit for a cool-down (5 s, doubling up to 5 min): jobs
 *   for it are put back without an attempt; when the cool-down ends a single probe attempt may run, and its
 *   answer closes the circuit (any HTTP answer) or reopens it for longer (another timeout).
 *
 * A put-back job is not an attempt: it keeps its place in the retry schedule. So a hanging receiver holds at most
 * `maxInFlight` slots, and after its first timeout one, however many events it is sent.
 */
export interface EndpointGateOptions {
  maxInFlight: number;
  slowAfterMs: number;
  /** How long a job may wait in-process for a free place before it is put back on the queue. */
  maxWaitMs: number;
  /** Deadline of one attempt: a job put back behind a stuck attempt comes back when that attempt must have ended. */
  attemptTimeoutMs: number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

export type GateDecision =
  | { admitted: true; release(outcome: AttemptOutcome['kind']): void }
  | {
      admitted: false;
      /** `busy`: attempts in flight answer but the limit is reached; `stuck`: they hang; `circuit-open`: timed out. */
      reason: 'circuit-open' | 'stuck' | 'busy';
      retryAfterMs: number;
    };

interface EndpointState {
  /** Start times of the attempts in flight. */
  inFlight: Set<{ startedAt: number }>;
  /** Consecutive timeouts; > 0 means the circuit is open or half-open. */
  timeouts: number;
  openUntil: number;
  waiters: Set<() => void>;
}

export class EndpointGate {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly now: () => number;
  private readonly baseCooldownMs: number;
  private readonly maxCooldownMs: number;

  constructor(private readonly options: EndpointGateOptions) {
    this.now = options.now ?? Date.now;
    this.baseCooldownMs = options.baseCooldownMs ?? 5_000;
    this.maxCooldownMs = options.maxCooldownMs ?? 300_000;
  }

  async enter(endpoint: string): Promise<GateDecision> {
    const state = this.state(endpoint);
    const waitUntil = this.now() + this.options.maxWaitMs;
    for (;;) {
      const now = this.now();
      if (now < state.openUntil)
        return { admitted: false, reason: 'circuit-open', retryAfterMs: state.openUntil - now };
      // Half-open after a timeout: one probe at a time.
      const limit = state.timeouts > 0 ? 1 : this.options.maxInFlight;
      if (state.inFlight.size < limit) return this.admit(endpoint, state);
      const oldest = Math.min(...[...state.inFlight].map((a) => a.startedAt));
      const stuck = state.timeouts > 0 || now - oldest >= this.options.slowAfterMs;
      if (stuck) {
        // Nothing changes for this destination before its oldest attempt answers or times out.
        return {
          admitted: false,
          reason: 'stuck',
          retryAfterMs: Math.max(this.options.slowAfterMs, oldest + this.options.attemptTimeoutMs - now),
        };
      }
      if (now >= waitUntil) return { admitted: false, reason: 'busy', retryAfterMs: this.options.slowAfterMs };
      await this.waitForPlace(state, Math.min(waitUntil, oldest + this.options.slowAfterMs) - now);
    }
  }

  /** Destinations currently tracked (for tests and metrics). */
  inFlight(endpoint: string): number {
    return this.endpoints.get(endpoint)?.inFlight.size ?? 0;
  }

  private admit(endpoint: string, state: EndpointState): GateDecision {
    const attempt = { startedAt: this.now() };
    state.inFlight.add(attempt);
    let released = false;
    return {
      admitted: true,
      release: (outcome) => {
        if (released) return;
        released = true;
        state.inFlight.delete(attempt);
        if (outcome === 'timeout') {
          state.timeouts++;
          state.openUntil = this.now() + Math.min(this.maxCooldownMs, this.baseCooldownMs * 2 ** (state.timeouts - 1));
        } else if (outcome === 'success' || outcome === 'http-error') {
          state.timeouts = 0;
          state.openUntil = 0;
        }
        for (const wake of state.waiters) wake();
        if (!state.inFlight.size && !state.timeouts && !state.waiters.size) this.endpoints.delete(endpoint);
      },
    };
  }

  private waitForPlace(state: EndpointState, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        state.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(1, ms));
      state.waiters.add(wake);
    });
  }

  private state(endpoint: string): EndpointState {
    let state = this.endpoints.get(endpoint);
    if (!state) {
      state = { inFlight: new Set(), timeouts: 0, openUntil: 0, waiters: new Set() };
      this.endpoints.set(endpoint, state);
    }
    return state;
  }
}
