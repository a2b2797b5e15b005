import type { MetricDimensions, Metrics } from '#shared/kernel/metrics.ts';

/** Records what was counted, as `name{dimension=value,...}` → total. */
export function recordingMetrics() {
  const totals = new Map<string, number>();
  const key = (name: string, dimensions?: MetricDimensions) =>
    `${name}${
      dimensions
        ? `{${Object.entries(dimensions)
            .map(([k, v]) => `${k}=${v}`)
            .join(',')}}`
        : ''
    }`;
  const metrics: Metrics = {
    count: (name, value = 1, dimensions) =>
      totals.set(key(name, dimensions), (totals.get(key(name, dimensions)) ?? 0) + value),
    milliseconds: (name, _value, dimensions) =>
      totals.set(key(name, dimensions), (totals.get(key(name, dimensions)) ?? 0) + 1),
  };
  return { metrics, totals: () => Object.fromEntries(totals) };
}
