/**
 * Where a webhook delivers: `http` (its `url`) or a service in the customer's own AWS account, reached by assuming
 * the customer's `roleArn` with the project's external id. The role is assumed only when delivering: a webhook is
 * created without any call to AWS, and a role that cannot be assumed shows as failed attempts in its delivery log.
 */
export type AwsDestination =
  | { type: 'sqs'; roleArn: string; queueUrl: string }
  | { type: 'sns'; roleArn: string; topicArn: string }
  | { type: 'eventbridge'; roleArn: string; eventBusArn: string; detailType?: string }
  | { type: 'kinesis'; roleArn: string; streamArn: string }
  | { type: 's3'; roleArn: string; bucket: string; prefix?: string };

export type WebhookDestination = { type: 'http' } | AwsDestination;
export type DestinationType = WebhookDestination['type'];
export const DESTINATION_TYPES = ['http', 'sqs', 'sns', 'eventbridge', 'kinesis', 's3'] as const;

/** An ARN as AWS writes it: `arn:<partition>:<service>:<region>:<12-digit account>:<resource>`. */
export interface ParsedArn {
  partition: string;
  service: string;
  region: string;
  account: string;
  resource: string;
}

const ARN = /^arn:(aws|aws-cn|aws-us-gov):([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):(.+)$/;
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;

export function parseArn(text: string): ParsedArn | undefined {
  const m = ARN.exec(text);
  if (!m || text.length > 2048) return undefined;
  return { partition: m[1]!, service: m[2]!, region: m[3]!, account: m[4]!, resource: m[5]! };
}

/** IAM role names: 1–64 of `\w+=,.@-`, optionally under a path. */
const ROLE_RESOURCE = /^role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
const TOPIC_NAME = /^[\w-]{1,256}(\.fifo)?$/;
const BUS_RESOURCE = /^event-bus\/[\w.\-/]{1,256}$/;
const STREAM_RESOURCE = /^stream\/[\w.-]{1,128}$/;
const QUEUE_NAME = /^[\w-]{1,80}(\.fifo)?$/;

/** Why an ARN is not one of `service`'s (undefined when it is). */
export function arnProblem(text: string, service: 'iam' | 'sns' | 'events' | 'kinesis'): string | undefined {
  const arn = parseArn(text);
  if (!arn || arn.service !== service) return `Not an ${service} ARN (arn:aws:${service}:<region>:<account>:…)`;
  if (arn.account === '') return 'The ARN names no 12-digit account';
  if (service === 'iam') {
    if (arn.region !== '') return 'A role ARN has no region (arn:aws:iam::<account>:role/<name>)';
    return ROLE_RESOURCE.test(arn.resource) ? undefined : 'Not a role (arn:aws:iam::<account>:role/<name>)';
  }
  if (!REGION.test(arn.region)) return 'The ARN names no region';
  const pattern = { sns: TOPIC_NAME, events: BUS_RESOURCE, kinesis: STREAM_RESOURCE }[service];
  return pattern.test(arn.resource) ? undefined : `Not a ${service} resource ARN`;
}

/** A queue URL's parts: SQS's own (`https://sqs.<region>.amazonaws.com/<account>/<name>`, or the legacy host). */
export interface ParsedQueueUrl {
  region: string;
  account: string;
  name: string;
  fifo: boolean;
}

const AWS_QUEUE_URL =
  /^https:\/\/(?:sqs\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?|([a-z0-9-]+)\.queue\.amazonaws\.com)\/(\d{12})\/([^/?#]+)$/;
/** The local stand-in's queue URLs: `http://127.0.0.1:<port>/…` or `http://sqs.<region>.127.0.0.1:<port>/…`. */
const LOCAL_QUEUE_URL =
  /^http:\/\/(?:sqs\.([a-z0-9-]+)\.)?(?:127\.0\.0\.1|localhost)(?::\d{1,5})?\/(\d{12})\/([^/?#]+)$/;

/**
 * Reads a queue URL. On AWS only SQS's hosts are accepted (the SDK is pointed at SQS, never at the URL's host); where
 * private destinations are allowed (local runs), the stand-in's loopback form too.
 */
export function parseQueueUrl(text: string, allowLocal: boolean): ParsedQueueUrl | undefined {
  if (text.length > 2048) return undefined;
  const aws = AWS_QUEUE_URL.exec(text);
  const region = aws ? (aws[1] ?? aws[2])! : undefined;
  if (aws && REGION.test(region!) && QUEUE_NAME.test(aws[4]!)) {
    return { region: region!, account: aws[3]!, name: aws[4]!, fifo: aws[4]!.endsWith('.fifo') };
  }
  const local = allowLocal ? LOCAL_QUEUE_URL.exec(text) : null;
  if (!local || !QUEUE_NAME.test(local[3]!)) return undefined;
  return { region: local[1] ?? '', account: local[2]!, name: local[3]!, fifo: local[3]!.endsWith('.fifo') };
}

/** S3's rules for a bucket name (general purpose buckets): 3–63 of a-z 0-9 . -, no IP form, no reserved affixes. */
export function bucketNameProblem(name: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) return 'Not an S3 bucket name (3–63 of a-z, 0-9, ".", "-")';
  if (name.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'Not an S3 bucket name';
  if (/^(xn--|sthree-|amzn-s3-demo-)/.test(name) || /(-s3alias|--ol-s3|--x-s3|--table-s3)$/.test(name))
    return 'The bucket name uses a prefix or suffix S3 reserves';
  return undefined;
}

/** Every problem of a destination's resource fields, by field (the shape itself is checked by the wire schema). */
export function destinationProblems(
  destination: WebhookDestination,
  allowLocal: boolean,
): { path: string; message: string }[] {
  if (destination.type === 'http') return [];
  const problems: { path: string; message: string }[] = [];
  const check = (path: string, problem: string | undefined) => problem && problems.push({ path, message: problem });
  check('roleArn', arnProblem(destination.roleArn, 'iam'));
  if (destination.type === 'sqs')
    check('queueUrl', parseQueueUrl(destination.queueUrl, allowLocal) ? undefined : 'Not an SQS queue URL');
  if (destination.type === 'sns') check('topicArn', arnProblem(destination.topicArn, 'sns'));
  if (destination.type === 'eventbridge') check('eventBusArn', arnProblem(destination.eventBusArn, 'events'));
  if (destination.type === 'kinesis') check('streamArn', arnProblem(destination.streamArn, 'kinesis'));
  if (destination.type === 's3') check('bucket', bucketNameProblem(destination.bucket));
  return problems;
}
