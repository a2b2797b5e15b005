import { Metrics as PowertoolsMetricsClient, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMESPACE } from '../../contract/metrics.ts';
import type { InvocationMetrics, MetricDimensions, MetricName } from '../metrics.ts';

/**
 * {@link Metrics} as CloudWatch embedded metric format (EMF) lines on stdout, through Powertools Metrics: on AWS
 * CloudWatch Logs turns them into metrics with no API call on the request path; locally they are log lines. The
 * service dimension is the function's POWERTOOLS_SERVICE_NAME.
 *
 * Values without dimensions are aggregated and published once per invocation ({@link PowertoolsMetrics.publish}); a value
 * with dimensions is published at once on a line of its own, since one EMF line holds one set of dimensions.
 */
export class PowertoolsMetrics implements InvocationMetrics {
  readonly client: PowertoolsMetricsClient;
  /**
   * Writes each value with dimensions on a line of its own. One, built with the client: Powertools' `singleMetric()`
   * builds a whole client (environment reads, a Console) per call, and a completion records three such values. A
   * single-metric client publishes, and forgets its dimensions, on every `addMetric`, all synchronously, so one serves
   * every value and every concurrent invocation.
   */
  private readonly single: PowertoolsMetricsClient;

  constructor(functionName: string) {
    this.client = new PowertoolsMetricsClient({
      namespace: METRIC_NAMESPACE,
      serviceName: process.env.POWERTOOLS_SERVICE_NAME || `switchboard-${functionName}`,
    });
    this.single = this.client.singleMetric();
  }

  count(name: MetricName, value = 1, dimensions?: MetricDimensions): void {
    this.add(name, MetricUnit.Count, value, dimensions);
  }

  milliseconds(name: MetricName, value: number, dimensions?: MetricDimensions): void {
    this.add(name, MetricUnit.Milliseconds, value, dimensions);
  }

  /** Publishes what the invocation recorded, if anything (Powertools' `logMetrics` warns on every empty one). */
  publish(): void {
    if (this.client.hasStoredMetrics()) this.client.publishStoredMetrics();
  }

  private add(
    name: MetricName,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
    dimensions?: MetricDimensions,
  ): void {
    if (!dimensions || Object.keys(dimensions).length === 0) {
      this.client.addMetric(name, unit, value);
      return;
    }
    this.single.addDimensions({ ...dimensions });
    this.single.addMetric(name, unit, value);
  }
}
