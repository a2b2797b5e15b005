import { Metrics as PowertoolsMetricsClient, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  METRIC_NAMESPACE,
  type InvocationMetrics,
  type MetricDimensions,
  type MetricName,
} from '../../observability/metrics.ts';

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

  constructor(functionName: string) {
    this.client = new PowertoolsMetricsClient({
      namespace: METRIC_NAMESPACE,
      serviceName: process.env.POWERTOOLS_SERVICE_NAME || `switchboard-${functionName}`,
    });
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
    const single = this.client.singleMetric();
    single.addDimensions({ ...dimensions });
    single.addMetric(name, unit, value);
  }
}
