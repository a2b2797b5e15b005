/**
 * The service's own metrics: one namespace, a fixed catalogue of names, a few low-cardinality dimensions (outcome,
 * provider, engine; never a project, token or URL). Use cases and wiring record through the {@link Metrics} port;
 * `shared/kernel/adapters/` turns it into CloudWatch EMF log lines. The names are the contract's
 * (`shared/contract/metrics.ts`), which the dashboard and alarms read too.
 */
import type { MetricName } from '../contract/metrics.ts';

export type { MetricName } from '../contract/metrics.ts';

/** Dimension values are a closed, small set each (an outcome, a provider name): never an id. */
export type MetricDimensions = Readonly<Record<string, string>>;

/** Where metrics go. Values recorded during one invocation are published when it ends. */
export interface Metrics {
  /** Adds `value` (1 by default) to a count. */
  count(name: MetricName, value?: number, dimensions?: MetricDimensions): void;
  /** Records one duration in milliseconds. */
  milliseconds(name: MetricName, value: number, dimensions?: MetricDimensions): void;
}

/** Metrics that a function publishes at the end of each invocation (`shared/http/invocation.ts`). */
export interface InvocationMetrics extends Metrics {
  /** Writes out what this invocation recorded, if anything. */
  publish(): void;
}

/** Records nothing: for use cases wired without metrics (tests, tools). */
export const noMetrics: Metrics = { count: () => {}, milliseconds: () => {} };
