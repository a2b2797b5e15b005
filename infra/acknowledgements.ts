import { type Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type IRole, Policy, type Role } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { SecretKey } from '#shared/contract/access.ts';
import type { BucketKey } from '#shared/contract/buckets.ts';
import type { FunctionSpec } from './functions.ts';

/** The id prefix of CDK's singleton Lambda that applies S3 bucket notifications (a custom resource, deploy time only). */
export const BUCKET_NOTIFICATIONS_HANDLER = 'BucketNotificationsHandler';

/** A cdk-nag AwsSolutions finding id as CDK's validation report names it. */
const nag = (rule: string) => `AwsSolutions::AwsSolutions-${rule}`;

/**
 * Why each remaining AwsSolutions finding is accepted. Every acknowledgement names the exact finding (and, for IAM
 * wildcards, the exact resource pattern), so a new finding of the same rule elsewhere still fails the synth.
 */
export const reasons = {
  runtime:
    'Node 22 is the runtime the project builds, tests and benchmarks on (package.json engines ">=22.5 <23", the `node` dev dependency); ' +
    'nodejs22.x is supported by Lambda into 2027. Moving to nodejs24.x is a one-line change made together with the engine bump.',
  apiAuthorization:
    'Every route authenticates inside its function: Bots API tokens and custom channel tokens (SHA-256 hash lookup, then the per-token GCRA limit) ' +
    'and the admin key (constant-time compare). The contract fixes a distinct 401 code per failure (ERR_API_TOKEN_NOT_PROVIDED, ' +
    '_INVALID_FORMAT, _INVALID, _AUTHENTICATION_FAILED, ERR_NO_PERMISSION, UNAUTHORIZED) and counts the rate limit after authentication, which an API ' +
    'Gateway authorizer cannot express (one 401/403 body, cached by token). Callers are servers holding API tokens, not Cognito users. The ' +
    'fallback catch-alls answer 404/405 to anyone on purpose.',
  requestValidation:
    "Bodies are validated in the functions with zod so a 400 carries the contract's VALIDATION_ERROR with one details[] entry per problem, all at " +
    "once; an API Gateway validator answers BAD_REQUEST_BODY without details and cannot apply the send endpoint's per-channel schema.",
  waf:
    'A WAFv2 web ACL costs at least USD 5 plus USD 1 per rule every month, against an idle cost goal near zero. Abuse is bounded by the ' +
    "per-token GCRA limit (60/min), the per-channel credits, the stage throttle and the long routes' reserved concurrency. A web ACL can be " +
    'attached to the stage later without changing the stack (aws wafv2 associate-web-acl with the stage ARN).',
  bucketAccessLogs:
    "Objects are reachable only through the functions' roles and presigned URLs (public access blocked, TLS only); server access logs would add a " +
    'third bucket and a log object per request. CloudTrail S3 data events can be enabled per bucket when an audit needs object-level trails.',
  apiGatewayLogsRole:
    'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy for the account-level role API Gateway writes access and execution logs ' +
    'with; only the apigateway.amazonaws.com service assumes it.',
  secretRotation: {
    adminKey:
      "The admin key is held by the operator's panel: an automatic rotation would lock it out. Rotate by hand (put-secret-value, then the admin " +
      'function picks it up on its next cold start).',
    secretsKey:
      'This is a data-encryption key: values sealed under it (webhook signing secrets, provider credentials) must be re-encrypted before the key ' +
      'can change, so an automatic rotation would make them unreadable. The sealed format is versioned (v1.) for a planned re-key.',
    modelApiKey:
      'The key is issued by the model provider; rotate it there, then store the new value (put-secret-value).',
  } satisfies Record<SecretKey, string>,
  objectPrefix: (prefix: string) =>
    prefix
      ? `Objects under the "${prefix}" prefix only: object ARNs can be narrowed to a key prefix, not further (keys are generated per upload).`
      : 'Objects of this bucket: keys are per project/bot/file and created at run time; the declaration grants only the listed actions.',
  bucketNotificationsHandler:
    "CDK's own handler of the knowledge bucket's S3 event notification (a custom resource that runs only on deploy): " +
    'AWSLambdaBasicExecutionRole lets it write its logs; its one other permission is s3:PutBucketNotification on that bucket.',
  customerRoles:
    "Webhook destinations are in customers' own accounts, whose role ARNs are data, not known at deploy: sts:AssumeRole on " +
    "any account's role, only with one of our external ids (sbx_*); the customer's trust policy names our account and " +
    "their project's external id.",
  textract:
    "Textract's synchronous DetectDocumentText/AnalyzeDocument take the document in the request and have no resource type to scope to.",
  sesIdentities:
    "ses:SendEmail alone, on this account's identities in any region: an SES channel's sender is the customer's own verified domain or address, named when the channel is created (not known at deploy), in the region the channel names; another account's identities stay out.",
  sesConfigurationSets:
    "ses:SendEmail alone, on this account's configuration sets in any region: SES authorises a send on the configuration set it is made in as well as on the identity, and a channel may send in a region other than the stack's; another account's sets stay out.",
};

export interface AcknowledgementTargets {
  api: RestApi;
  buckets: Record<BucketKey, Bucket>;
  secrets: Partial<Record<SecretKey, Secret>>;
  roles: Record<string, IRole>;
  specs: FunctionSpec[];
}

export function acknowledgeFindings(stack: Stack, targets: AcknowledgementTargets): void {
  Validations.of(stack).acknowledge({ id: nag('L1'), reason: reasons.runtime });

  Validations.of(targets.api).acknowledge(
    { id: nag('APIG4'), reason: reasons.apiAuthorization },
    { id: nag('COG4'), reason: reasons.apiAuthorization },
    { id: nag('APIG2'), reason: reasons.requestValidation },
    { id: nag('APIG3'), reason: reasons.waf },
    {
      id: nag('IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]'),
      reason: reasons.apiGatewayLogsRole,
    },
  );

  for (const bucket of Object.values(targets.buckets))
    Validations.of(bucket).acknowledge({ id: nag('S1'), reason: reasons.bucketAccessLogs });
  for (const handler of stack.node.children.filter((c) => c.node.id.startsWith(BUCKET_NOTIFICATIONS_HANDLER))) {
    Validations.of(handler).acknowledge({
      id: nag('IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]'),
      reason: reasons.bucketNotificationsHandler,
    });
  }
  for (const [key, secret] of Object.entries(targets.secrets) as [SecretKey, Secret][]) {
    Validations.of(secret).acknowledge({ id: nag('SMG4'), reason: reasons.secretRotation[key] });
  }

  // The wildcards a declaration produces, finding by finding.
  for (const spec of targets.specs) {
    const role = targets.roles[spec.fn];
    if (!role) continue;
    for (const [key, access] of Object.entries(spec.access.buckets ?? {}) as [
      BucketKey,
      NonNullable<FunctionSpec['access']['buckets']>[BucketKey],
    ][]) {
      if (!access) continue;
      const logicalId = stack.resolve((targets.buckets[key].node.defaultChild as CfnBucket).logicalId) as string;
      for (const prefix of new Set([...(access.read ?? []), ...(access.write ?? []), ...(access.delete ?? [])])) {
        Validations.of(role).acknowledge({
          id: nag(`IAM5[Resource::<${logicalId}.Arn>/${prefix}*]`),
          reason: reasons.objectPrefix(prefix),
        });
      }
    }
    if (spec.access.textract)
      Validations.of(role).acknowledge({ id: nag('IAM5[Resource::*]'), reason: reasons.textract });
    if (spec.access.ses?.send) {
      Validations.of(role).acknowledge({
        id: nag('IAM5[Resource::arn:<AWS::Partition>:ses:*:<AWS::AccountId>:identity/*]'),
        reason: reasons.sesIdentities,
      });
      Validations.of(role).acknowledge({
        id: nag('IAM5[Resource::arn:<AWS::Partition>:ses:*:<AWS::AccountId>:configuration-set/*]'),
        reason: reasons.sesConfigurationSets,
      });
    }
    if (spec.access.assumeCustomerRoles) {
      Validations.of(role).acknowledge({
        id: nag('IAM5[Resource::arn:aws:iam::*:role/*]'),
        reason: reasons.customerRoles,
      });
    }
  }
}

/** Why the findings that observability brings are accepted (Powertools logs, metrics and active tracing). */
export const observabilityReasons = {
  xray:
    'Active tracing: Lambda sends the function segment with xray:PutTraceSegments and xray:PutTelemetryRecords, which have no ' +
    'resource type (AWS documents Resource "*" for them; the AWSXRayDaemonWriteAccess managed policy does the same).',
  scheduleDeadLetterQueue:
    'This queue is itself a dead-letter queue: of the schedule rule target and of the scheduled function asynchronous failures ' +
    '(EventBridge and Lambda destinations, not an SQS redrive policy, so the rule does not see it as one). It has an alarm.',
};

/**
 * Acknowledges the X-Ray wildcard that active tracing adds to each function's role: in a policy of its own under the
 * function (with `@aws-cdk/aws-lambda:createNewPoliciesWithAddToRolePolicy`, as cdk.json sets) or in the role's
 * default policy. Only where every `*` statement of that policy is X-Ray's (or Textract's, acknowledged above with
 * its own reason), so no other wildcard hides under it. Also the schedule dead-letter queues.
 */
export function acknowledgeTracing(
  functions: IConstruct[],
  roles: Record<string, Role>,
  scheduleDeadLetterQueues: IConstruct[],
): void {
  const policies = [
    ...functions.flatMap((fn) => fn.node.children.filter((c): c is Policy => c instanceof Policy)),
    ...Object.values(roles).flatMap((role) => {
      const policy = role.node.tryFindChild('DefaultPolicy');
      return policy instanceof Policy ? [policy] : [];
    }),
  ];
  for (const policy of policies) {
    const wildcards = wildcardActions(policy);
    if (!wildcards.some((a) => a.startsWith('xray:'))) continue;
    if (!wildcards.every((a) => a.startsWith('xray:') || a.startsWith('textract:'))) continue;
    Validations.of(policy).acknowledge({ id: nag('IAM5[Resource::*]'), reason: observabilityReasons.xray });
  }
  for (const queue of scheduleDeadLetterQueues)
    Validations.of(queue).acknowledge({ id: nag('SQS3'), reason: observabilityReasons.scheduleDeadLetterQueue });
}

/** The actions a policy grants on `*`. */
function wildcardActions(policy: Policy): string[] {
  const statements = (policy.document.toJSON()?.Statement ?? []) as { Action: string | string[]; Resource: unknown }[];
  return statements
    .filter((st) => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]).includes('*'))
    .flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
}
