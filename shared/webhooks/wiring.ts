import { AwsDestinationSender } from './adapters/aws-destination-sender.ts';
import type { DestinationSender } from './destination-sender.ts';
import { webhookSettings } from './settings.ts';

/** What the destinations need of the function's own configuration (the kernel's region and endpoints). */
export interface DestinationPlatform {
  region: string;
  sqsEndpoint?: string;
  s3Endpoint?: string;
  /** Local runs: queue URLs of the stand-in's form are delivered to. */
  allowPrivateDestinations: boolean;
}

/** The sender of deliveries into customers' AWS accounts, from this area's settings. */
export function wireDestinations(platform: DestinationPlatform): DestinationSender {
  const settings = webhookSettings.read();
  const endpoints = {
    sqs: platform.sqsEndpoint,
    s3: platform.s3Endpoint,
    sts: settings.STS_ENDPOINT,
    sns: settings.SNS_ENDPOINT,
    eventbridge: settings.EVENTBRIDGE_ENDPOINT,
    kinesis: settings.KINESIS_ENDPOINT,
  };
  return new AwsDestinationSender({
    region: platform.region,
    endpoints: Object.fromEntries(Object.entries(endpoints).filter(([, v]) => v !== undefined)),
    sessionSeconds: settings.DESTINATION_ROLE_SESSION_SECONDS,
    timeoutMs: settings.DESTINATION_ATTEMPT_TIMEOUT_MS,
    allowLocalQueueUrls: platform.allowPrivateDestinations,
  });
}
