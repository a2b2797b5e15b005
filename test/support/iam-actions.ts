/**
 * The IAM actions the deployed functions' AWS calls come to (as local/bundles/aws-front.ts records them), each with
 * the resource types it is authorized against, from AWS's Service Authorization Reference. A recorded call is judged
 * only when its action is here and its resource is an ARN of one of the action's types, so a recording that names
 * the wrong thing (a queue name for a queue ARN, a bucket for an object) fails the check instead of passing it.
 * A call to an action not listed fails naming it: add its row (resource types from the reference) with the code
 * that makes it.
 */

const PARTITION = 'aws(?:-cn|-us-gov)?';
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d';
const ACCOUNT = '\\d{12}';

/** A resource type's ARN shape: service, whether the ARN carries region and account, the resource part. */
const arn = (service: string, scope: { region: boolean; account: boolean }, resource: string) =>
  new RegExp(
    `^arn:${PARTITION}:${service}:${scope.region ? REGION : ''}:${scope.account ? ACCOUNT : ''}:${resource}$`,
    's',
  );
const regional = { region: true, account: true };
const bedrockModel = (kind: string) => arn('bedrock', regional, `${kind}/.+`);

const types = {
  'dynamodb table': arn('dynamodb', regional, 'table/[^/]+'),
  'dynamodb index': arn('dynamodb', regional, 'table/[^/]+/index/[^/]+'),
  'sqs queue': arn('sqs', regional, '[A-Za-z0-9_-]+(?:\\.fifo)?'),
  's3 bucket': arn('s3', { region: false, account: false }, '[^/]+'),
  's3 object': arn('s3', { region: false, account: false }, '[^/]+/.+'),
  'secretsmanager secret': arn('secretsmanager', regional, 'secret:.+'),
  'iam role': arn('iam', { region: false, account: true }, 'role/.+'),
  'ses identity': arn('ses', regional, 'identity/.+'),
  'ses configuration-set': arn('ses', regional, 'configuration-set/[^/]+'),
  'bedrock foundation-model': arn('bedrock', { region: true, account: false }, 'foundation-model/.+'),
  'bedrock inference-profile': bedrockModel('inference-profile'),
  'bedrock application-inference-profile': bedrockModel('application-inference-profile'),
  'bedrock provisioned-model': bedrockModel('provisioned-model'),
  'bedrock imported-model': bedrockModel('imported-model'),
  'bedrock custom-model-deployment': bedrockModel('custom-model-deployment'),
  'bedrock prompt-router': bedrockModel('prompt-router'),
  'bedrock default-prompt-router': bedrockModel('default-prompt-router'),
} satisfies Record<string, RegExp>;

type ResourceType = keyof typeof types;

const bedrockInvoke: ResourceType[] = [
  'bedrock foundation-model',
  'bedrock inference-profile',
  'bedrock application-inference-profile',
  'bedrock provisioned-model',
  'bedrock imported-model',
  'bedrock custom-model-deployment',
  'bedrock prompt-router',
  'bedrock default-prompt-router',
];

/** Action → the resource types it takes; `[]`: the action has none, and is granted on `*` only. */
export const ACTIONS: Record<string, ResourceType[]> = {
  'dynamodb:GetItem': ['dynamodb table'],
  'dynamodb:PutItem': ['dynamodb table'],
  'dynamodb:UpdateItem': ['dynamodb table'],
  'dynamodb:DeleteItem': ['dynamodb table'],
  'dynamodb:BatchGetItem': ['dynamodb table'],
  'dynamodb:BatchWriteItem': ['dynamodb table'],
  'dynamodb:Query': ['dynamodb table', 'dynamodb index'],
  // SendMessageBatch, DeleteMessageBatch and ChangeMessageVisibilityBatch are authorized as their single forms.
  'sqs:SendMessage': ['sqs queue'],
  'sqs:ReceiveMessage': ['sqs queue'],
  'sqs:DeleteMessage': ['sqs queue'],
  'sqs:ChangeMessageVisibility': ['sqs queue'],
  'sqs:GetQueueAttributes': ['sqs queue'],
  // HeadObject is authorized as GetObject, DeleteObjects per key as DeleteObject, HeadBucket as ListBucket.
  's3:GetObject': ['s3 object'],
  's3:PutObject': ['s3 object'],
  's3:DeleteObject': ['s3 object'],
  's3:ListBucket': ['s3 bucket'],
  'secretsmanager:GetSecretValue': ['secretsmanager secret'],
  // Converse and InvokeModel are authorized as InvokeModel, ConverseStream as InvokeModelWithResponseStream.
  'bedrock:InvokeModel': bedrockInvoke,
  'bedrock:InvokeModelWithResponseStream': bedrockInvoke,
  'bedrock:CountTokens': ['bedrock foundation-model'],
  'textract:DetectDocumentText': [],
  // A customer's role, for a webhook destination in their account.
  'sts:AssumeRole': ['iam role'],
  // SES v2 SendEmail is authorized on the identity it sends as and on its configuration set.
  'ses:SendEmail': ['ses identity', 'ses configuration-set'],
};

/** Why a recorded call cannot be judged (unknown action, resource of no type the action takes), or undefined. */
export function requestProblem(action: string, resource: string): string | undefined {
  const resourceTypes = ACTIONS[action];
  if (!resourceTypes) return `${action} is not in the table of actions (test/support/iam-actions.ts)`;
  if (resourceTypes.length === 0)
    return resource === '*' ? undefined : `${action} has no resource type: the call must name "*"`;
  if (!resourceTypes.some((type) => types[type].test(resource)))
    return `${resource} is not an ARN of a resource type ${action} takes (${resourceTypes.join(', ')})`;
  return undefined;
}
