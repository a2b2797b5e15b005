import { Arn, ArnFormat, Aws, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionAccess, SecretKey } from '#shared/contract/access.ts';
import type { BucketKey } from '#shared/contract/buckets.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import { indexes, previousConversationIndex } from '#shared/contract/table.ts';

/** The deployed resources a declaration can name. */
export interface AccessTargets {
  table: ITable;
  queues: Record<QueueKey, IQueue>;
  buckets: Record<BucketKey, IBucket>;
  /** Only the secrets this deployment has (the model API key exists only with the openai provider). */
  secrets: Partial<Record<SecretKey, ISecret>>;
  /** ARNs Bedrock calls may name (foundation models and inference profiles of the allowed model ids). */
  bedrockModelArns: string[];
  /** The previous conversation index is kept: whoever may query the new one may query it (read while it fills). */
  previousConversationIndex?: boolean;
}

// No transactions (the project uses single-item conditional writes) and no Scan: neither is granted.
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
export const BEDROCK_INVOKE_ACTIONS = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
export const TEXTRACT_ACTIONS = ['textract:DetectDocumentText', 'textract:AnalyzeDocument'];

/**
 * The IAM statements for exactly what a function declares: each names its actions and the narrowest resources
 * AWS supports (a key prefix in a bucket, one queue, one index). No Scan, no table-wide wildcard, no `s3:*`.
 */
export function statementsFor(access: FunctionAccess, targets: AccessTargets): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  const allow = (sid: string, actions: string[], resources: string[]) =>
    statements.push(new PolicyStatement({ sid, effect: Effect.ALLOW, actions, resources }));

  if (access.table?.read) allow('TableRead', TABLE_READ_ACTIONS, [targets.table.tableArn]);
  if (access.table?.write) allow('TableWrite', TABLE_WRITE_ACTIONS, [targets.table.tableArn]);
  if (access.table?.indexes?.length) {
    allow(
      'TableIndexQuery',
      ['dynamodb:Query'],
      access.table.indexes
        .flatMap((index) =>
          index === indexes.conversations.indexName && targets.previousConversationIndex
            ? [index, previousConversationIndex.indexName]
            : [index],
        )
        .map((index) => `${targets.table.tableArn}/index/${index}`),
    );
  }

  for (const key of access.sendTo ?? [])
    allow(`Send${sidPart(key)}`, ['sqs:SendMessage'], [targets.queues[key].queueArn]);

  for (const [key, bucketAccess] of Object.entries(access.buckets ?? {}) as [
    BucketKey,
    NonNullable<FunctionAccess['buckets']>[BucketKey],
  ][]) {
    if (!bucketAccess) continue;
    const bucket = targets.buckets[key];
    const objects = (prefixes: string[]) => prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`));
    if (bucketAccess.read?.length) allow(`${sidPart(key)}Read`, ['s3:GetObject'], objects(bucketAccess.read));
    if (bucketAccess.write?.length)
      allow(`${sidPart(key)}Write`, ['s3:PutObject', 's3:AbortMultipartUpload'], objects(bucketAccess.write));
    if (bucketAccess.delete?.length) allow(`${sidPart(key)}Delete`, ['s3:DeleteObject'], objects(bucketAccess.delete));
    if (bucketAccess.list) allow(`${sidPart(key)}List`, ['s3:ListBucket'], [bucket.bucketArn]);
  }

  if (access.bedrock?.invoke && targets.bedrockModelArns.length)
    allow('BedrockInvoke', BEDROCK_INVOKE_ACTIONS, targets.bedrockModelArns);
  if (access.bedrock?.countTokens && targets.bedrockModelArns.length)
    allow('BedrockCountTokens', ['bedrock:CountTokens'], targets.bedrockModelArns);

  // SendEmail is authorised on the sending identity and on the configuration set: this account's, any region (a
  // channel may name its region), never another account's.
  if (access.ses?.send)
    allow(
      'SesSend',
      ['ses:SendEmail'],
      [
        `arn:${Aws.PARTITION}:ses:*:${Aws.ACCOUNT_ID}:identity/*`,
        `arn:${Aws.PARTITION}:ses:*:${Aws.ACCOUNT_ID}:configuration-set/*`,
      ],
    );

  // Textract's synchronous APIs take the document in the request and have no resource type to scope to.
  if (access.textract) allow('Textract', TEXTRACT_ACTIONS, ['*']);

  // Any account's role (the customer names it), only with one of our external ids: a role trusting our account
  // without requiring its project's external id cannot be reached through us by another project's webhook.
  if (access.assumeCustomerRoles) {
    statements.push(
      new PolicyStatement({
        sid: 'AssumeCustomerRoles',
        effect: Effect.ALLOW,
        actions: ['sts:AssumeRole'],
        // The commercial partition, written out: a customer's role is in the partition their account is in.
        resources: ['arn:aws:iam::*:role/*'],
        conditions: { StringLike: { 'sts:ExternalId': 'sbx_*' } },
      }),
    );
  }

  const secretArns = (access.secrets ?? [])
    .map((key) => targets.secrets[key]?.secretArn)
    .filter((arn): arn is string => arn !== undefined);
  if (secretArns.length) allow('ReadSecrets', ['secretsmanager:GetSecretValue'], secretArns);

  return statements;
}

const GEO_PREFIXES = ['us.', 'eu.', 'apac.', 'us-gov.', 'jp.', 'au.', 'ca.', 'global.'];

/**
 * The ARNs a model id is invoked through. A foundation model is one ARN in the stack's region; a cross-region
 * inference profile (`us.amazon.nova-lite-v1:0`) is the profile in this account and region plus the foundation
 * model in every region the profile may route to (Bedrock checks both).
 */
export function bedrockModelArns(scope: Construct, modelIds: readonly string[]): string[] {
  const stack = Stack.of(scope);
  const arns: string[] = [];
  for (const id of modelIds) {
    const geo = GEO_PREFIXES.find((prefix) => id.startsWith(prefix));
    if (geo) {
      arns.push(
        Arn.format(
          {
            service: 'bedrock',
            resource: 'inference-profile',
            resourceName: id,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          },
          stack,
        ),
        `arn:${stack.partition}:bedrock:*::foundation-model/${id.slice(geo.length)}`,
      );
    } else {
      arns.push(`arn:${stack.partition}:bedrock:${stack.region}::foundation-model/${id}`);
    }
  }
  return arns;
}

function sidPart(key: string): string {
  return key.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');
}
