import { perSecondParams, type RateDecision, type RateLimitStore } from './gcra.ts';
import { RateLimitedError } from './errors.ts';
import { DependencyOverloadedError } from '../kernel/overload.ts';

/** What a project's `limits` bound: its sends, and the events its channel back ends report. */
export type TenantLimitKind = 'sends' | 'events';

/** A project's own limits as the operator set them: a number, or null / absent for the deployment's default. */
export interface TenantLimits {
  sendsPerSecond?: number | null;
  eventsPerSecond?: number | null;
}

/** Where a project's limits are read (a cache of the project: a change applies within its time to live). */
export interface TenantLimitsSource {
  /** The project's limits; undefined when it has none set (or does not exist: its requests fail later anyway). */
  limitsOf(projectId: string): Promise<TenantLimits | undefined>;
}

const FIELD: Record<TenantLimitKind, keyof TenantLimits> = { sends: 'sendsPerSecond', events: 'eventsPerSecond' };
const NOUN: Record<TenantLimitKind, string> = { sends: 'sends', events: 'reported events' };

/**
 * A project's limits on its sends and reported events (`limits` on the project, else the deployment's defaults):
 * a bucket of one second's worth per project and kind, in the rate-limit store.
 * 1. read the project's limits (cached); 2. take one from its bucket; 3. over it: RATE_LIMITED (429) with
 *    `Retry-After`. A limit that cannot be read or written refuses the request (503), never admits it unchecked.
 */
export function makeTenantLimiter(deps: {
  store: RateLimitStore;
  limits: TenantLimitsSource;
  defaults: Record<keyof TenantLimits, number>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  return {
    /** Admits one request of `kind` for the project (its arrival time `at`), or throws RateLimitedError. */
    async admit(projectId: string, kind: TenantLimitKind, at: number = now()): Promise<RateDecision> {
      let limits: TenantLimits | undefined;
      try {
        limits = await deps.limits.limitsOf(projectId);
      } catch (cause) {
        throw new DependencyOverloadedError("The project's limits could not be read", { cause });
      }
      const field = FIELD[kind];
      const perSecond = limits?.[field] ?? deps.defaults[field];
      let decision: RateDecision;
      try {
        decision = await deps.store.admit(`${kind}#${projectId}`, at, perSecondParams(perSecond));
      } catch (cause) {
        throw new DependencyOverloadedError("The project's limit could not be checked", { cause });
      }
      if (!decision.allowed)
        throw new RateLimitedError(
          `This project's limit of ${perSecond} ${NOUN[kind]} a second was reached; retry after ${decision.retryAfterSeconds ?? 1} s.`,
          decision.retryAfterSeconds ?? 1,
        );
      return decision;
    },
  };
}

export type TenantLimiter = ReturnType<typeof makeTenantLimiter>;
