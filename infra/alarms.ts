import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { QueueKey } from '#shared/resources/queues.ts';
import { pascal } from './functions.ts';
import type { DeploymentSettings } from './settings.ts';

export const METRIC_NAMESPACE = 'Switchboard';

/**
 * The line the deliver function logs for each failed attempt (shared/webhooks/deliver.ts, Powertools JSON). The
 * webhook failure-rate alarm counts it with a metric filter against the deliveries queue's receives (one receive per
 * attempt: retries are postponed in the queue), so no metric call sits on the delivery path.
 */
export const FAILED_ATTEMPT_LOG_MESSAGE = 'delivery attempt failed';

/** Thresholds, chosen for a small deployment; each alarm's description says what to look at. */
export const alarmThresholds = {
  api5xxRate: 0.05,
  webhookFailureRate: 0.5,
  webhookMinimumAttempts: 20,
};

export interface AlarmProps {
  api: RestApi;
  functions: Record<string, NodejsFunction>;
  deadLetterQueues: Record<QueueKey, Queue>;
  /** The queue webhook attempts are received from. */
  deliveriesQueue: Queue;
  settings: DeploymentSettings;
  /** The function that delivers webhooks, when one exists. */
  deliverFunction?: string;
}

/**
 * Alarms on what a person must act on: a message in any dead-letter queue, the API's 5xx rate, throttled
 * functions, and the webhook failure rate. All notify one SNS topic (email subscription optional).
 */
export function createAlarms(scope: Construct, props: AlarmProps): Alarm[] {
  const topic = new Topic(scope, 'AlarmTopic', { displayName: 'Switchboard alarms', enforceSSL: true });
  if (props.settings.alarmEmail) topic.addSubscription(new EmailSubscription(props.settings.alarmEmail));
  const action = new SnsAction(topic);
  const alarms: Alarm[] = [];
  const add = (alarm: Alarm) => {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    alarms.push(alarm);
  };

  for (const [key, dlq] of Object.entries(props.deadLetterQueues) as [QueueKey, Queue][]) {
    add(
      new Alarm(scope, `${pascal(key)}DeadLetterAlarm`, {
        alarmDescription: `Messages in the ${key} dead-letter queue: they failed every retry. Inspect, fix, then redrive them.`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  add(
    new Alarm(scope, 'Api5xxRateAlarm', {
      alarmDescription: `More than ${alarmThresholds.api5xxRate * 100}% of API requests answered 5xx for 10 minutes. Check the functions' logs by request id.`,
      // The 5XXError metric's average is the share of requests that answered 5xx.
      metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Average' }),
      threshold: alarmThresholds.api5xxRate,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  );

  // One expression can hold at most 10 metrics: throttles are summed over groups of functions.
  const fns = Object.entries(props.functions);
  for (let i = 0; i < fns.length; i += 10) {
    const group = fns.slice(i, i + 10);
    const usingMetrics: Record<string, IMetric> = {};
    for (const [j, [, fn]] of group.entries()) {
      usingMetrics[`t${j}`] = fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' });
    }
    add(
      new Alarm(scope, `ThrottlesAlarm${i / 10 + 1}`, {
        alarmDescription: `Lambda throttled ${group.map(([name]) => name).join(', ')}: account concurrency is exhausted or a worker's maxConcurrency is too low.`,
        metric: new MathExpression({
          expression: Object.keys(usingMetrics).join(' + '),
          usingMetrics,
          period: Duration.minutes(5),
          label: 'throttles',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  const deliver = props.deliverFunction ? props.functions[props.deliverFunction] : undefined;
  if (deliver) {
    const failedAttempts = new MetricFilter(scope, 'WebhookFailedAttemptsFilter', {
      logGroup: deliver.logGroup,
      filterPattern: FilterPattern.stringValue('$.message', '=', FAILED_ATTEMPT_LOG_MESSAGE),
      metricNamespace: METRIC_NAMESPACE,
      metricName: 'WebhookFailedAttempts',
      metricValue: '1',
      defaultValue: 0,
    }).metric({ period: Duration.minutes(15), statistic: 'Sum' });
    const attempts = props.deliveriesQueue.metricNumberOfMessagesReceived({
      period: Duration.minutes(15),
      statistic: 'Sum',
    });
    add(
      new Alarm(scope, 'WebhookFailureRateAlarm', {
        alarmDescription:
          `Over ${alarmThresholds.webhookFailureRate * 100}% of webhook delivery attempts failed in 15 minutes ` +
          `(with at least ${alarmThresholds.webhookMinimumAttempts} attempts): a receiver is down or our egress is broken. ` +
          'The deliveries API lists each attempt with its status code and error.',
        metric: new MathExpression({
          expression: `IF(r >= ${alarmThresholds.webhookMinimumAttempts}, f / r, 0)`,
          usingMetrics: { f: failedAttempts, r: attempts },
          period: Duration.minutes(15),
          label: 'webhook failure rate',
        }),
        threshold: alarmThresholds.webhookFailureRate,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
  return alarms;
}
