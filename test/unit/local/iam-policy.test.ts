import { describe, expect, it } from 'vitest';
import { requestProblem } from '#test/support/iam-actions.ts';
import { actionMatches, evaluate, resourceMatches, UnsupportedPolicy } from '#test/support/iam-policy.ts';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/switchboard-main';
const policy = (...Statement: unknown[]) => ({ Version: '2012-10-17', Statement });
const allow = (Action: unknown, Resource: unknown) => ({ Effect: 'Allow', Action, Resource });
const deny = (Action: unknown, Resource: unknown) => ({ Effect: 'Deny', Action, Resource });

describe('the IAM policy evaluator of bundles mode', () => {
  it('allows what a statement allows, and denies a call that no statement matches', () => {
    const role = [policy(allow(['dynamodb:GetItem', 'dynamodb:Query'], TABLE))];
    expect(evaluate(role, 'dynamodb:GetItem', TABLE)).toBe('Allowed');
    expect(evaluate(role, 'dynamodb:PutItem', TABLE)).toBe('ImplicitlyDenied');
    expect(evaluate(role, 'dynamodb:GetItem', `${TABLE}-other`)).toBe('ImplicitlyDenied');
    expect(evaluate([], 'dynamodb:GetItem', TABLE)).toBe('ImplicitlyDenied');
  });

  it('an explicit deny beats an allow, in the same document or another one', () => {
    const allowAll = policy(allow('dynamodb:*', '*'));
    expect(evaluate([allowAll, policy(deny('dynamodb:DeleteItem', TABLE))], 'dynamodb:DeleteItem', TABLE)).toBe(
      'ExplicitlyDenied',
    );
    expect(evaluate([policy(deny('*', `${TABLE}*`), allow('*', '*'))], 'dynamodb:GetItem', TABLE)).toBe(
      'ExplicitlyDenied',
    );
    // A deny elsewhere does not touch what it does not match.
    expect(evaluate([allowAll, policy(deny('dynamodb:DeleteItem', TABLE))], 'dynamodb:GetItem', TABLE)).toBe('Allowed');
  });

  it('actions: case-insensitive, `*` any run of characters, `?` exactly one', () => {
    expect(actionMatches('dynamodb:getitem', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('DynamoDB:Get*', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('dynamodb:Get*', 'dynamodb:BatchGetItem')).toBe(false);
    expect(actionMatches('dynamodb:*Item', 'dynamodb:BatchGetItem')).toBe(true);
    expect(actionMatches('*', 's3:GetObject')).toBe(true);
    expect(actionMatches('s3:?etObject', 's3:GetObject')).toBe(true);
    expect(actionMatches('s3:?etObject', 's3:GGetObject')).toBe(false);
    expect(actionMatches('s3:GetObject?', 's3:GetObject')).toBe(false);
    expect(actionMatches('sqs:*', 'sqsx:SendMessage')).toBe(false);
  });

  it('resources: case-sensitive, `*` across / and : in the resource part, never across the ARN prefix parts', () => {
    expect(resourceMatches('*', TABLE)).toBe(true);
    expect(resourceMatches(TABLE, TABLE)).toBe(true);
    expect(resourceMatches(TABLE.toUpperCase(), TABLE)).toBe(false);
    expect(resourceMatches('arn:aws:s3:::bucket/media/*', 'arn:aws:s3:::bucket/media/a/b.png')).toBe(true);
    expect(resourceMatches('arn:aws:s3:::bucket/media/*', 'arn:aws:s3:::bucket/Media/a.png')).toBe(false);
    expect(resourceMatches('arn:aws:s3:::bucket/media/*', 'arn:aws:s3:::bucket/payloads/a')).toBe(false);
    expect(resourceMatches('arn:aws:s3:::bucket/*', 'arn:aws:s3:::bucket')).toBe(false);
    expect(
      resourceMatches(
        'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/Send:*',
        'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/Send:log-stream:2026/x',
      ),
    ).toBe(true);
    expect(resourceMatches('arn:aws:sqs:*:000000000000:queue-?', 'arn:aws:sqs:eu-west-1:000000000000:queue-a')).toBe(
      true,
    );
    expect(resourceMatches('arn:aws:sqs:*:000000000000:queue-?', 'arn:aws:sqs:eu-west-1:000000000000:queue-ab')).toBe(
      false,
    );
    // A `*` in the region part stays in the region part.
    expect(resourceMatches('arn:aws:sqs:*:000000000000:q', 'arn:aws:sqs:a:b:000000000000:q')).toBe(false);
    // Regular expression characters are literal.
    expect(resourceMatches('arn:aws:s3:::b/a.b', 'arn:aws:s3:::b/aXb')).toBe(false);
    // A call naming `*` (a service without resources) is granted only by a `*` resource.
    expect(resourceMatches('arn:aws:textract:us-east-1:000000000000:*', '*')).toBe(false);
  });

  it('counts an Allow under a condition only when the call carries the keys and they match', () => {
    const conditional = { ...allow('dynamodb:GetItem', TABLE), Condition: { StringLike: { 'sts:ExternalId': 'x*' } } };
    expect(evaluate([policy(conditional)], 'dynamodb:GetItem', TABLE)).toBe('ImplicitlyDenied');
    expect(evaluate([policy(conditional)], 'dynamodb:GetItem', TABLE, { 'sts:ExternalId': 'y1' })).toBe(
      'ImplicitlyDenied',
    );
    expect(evaluate([policy(conditional)], 'dynamodb:GetItem', TABLE, { 'sts:externalid': 'x1' })).toBe('Allowed');
    const equals = { ...conditional, Condition: { StringEquals: { 'sts:ExternalId': ['a', 'b'] } } };
    expect(evaluate([policy(equals)], 'dynamodb:GetItem', TABLE, { 'sts:ExternalId': 'b' })).toBe('Allowed');
    expect(evaluate([policy(equals)], 'dynamodb:GetItem', TABLE, { 'sts:ExternalId': 'a*' })).toBe('ImplicitlyDenied');
    // An operator it does not judge (here IP addresses) never allows, whatever the call carries.
    const ip = { ...conditional, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } };
    expect(evaluate([policy(ip)], 'dynamodb:GetItem', TABLE, { 'aws:SourceIp': '10.0.0.1' })).toBe('ImplicitlyDenied');
    expect(evaluate([policy(conditional, allow('dynamodb:GetItem', TABLE))], 'dynamodb:GetItem', TABLE)).toBe(
      'Allowed',
    );
  });

  it('throws on what it does not implement, even in a statement the call does not match', () => {
    const unsupported = (document: unknown) => () => evaluate([document], 'dynamodb:GetItem', TABLE);
    const withGet = allow('dynamodb:GetItem', TABLE);
    const cases: [unknown, RegExp][] = [
      [
        policy(withGet, { Effect: 'Deny', Action: 's3:GetObject', Resource: '*', Condition: { Bool: { x: 'y' } } }),
        /Condition/,
      ],
      [policy(withGet, { Effect: 'Allow', NotAction: 's3:*', Resource: '*' }), /NotAction/],
      [policy(withGet, { Effect: 'Allow', Action: 's3:*', NotResource: '*' }), /NotResource/],
      [policy(withGet, { ...allow('s3:*', '*'), Principal: '*' }), /Principal/],
      [policy(withGet, allow('s3:GetObject', `arn:aws:s3:::b/${'$'}{aws:username}/*`)), /Policy variables/],
      [policy(withGet, allow('s3:GetObject', 'arn:aws:s3')), /full ARN/],
      [policy(withGet, allow('GetObject', '*')), /service:Action/],
      [policy(withGet, allow([], '*')), /non-empty list/],
      [policy(withGet, allow('s3:GetObject', { 'Fn::GetAtt': ['Bucket', 'Arn'] })), /Resource must be/],
      [policy(withGet, { Effect: 'allow', Action: '*', Resource: '*' }), /Effect/],
      [{ Statement: [withGet] }, /version/],
      [{ ...policy(withGet), Id: 'x' }, /Id/],
    ];
    for (const [document, message] of cases) {
      expect(unsupported(document), JSON.stringify(document)).toThrow(UnsupportedPolicy);
      expect(unsupported(document), JSON.stringify(document)).toThrow(message);
    }
  });
});

describe('the IAM actions the recorded calls come to', () => {
  it('judges a call only when its action is known and its resource is an ARN of a type the action takes', () => {
    expect(requestProblem('dynamodb:GetItem', TABLE)).toBeUndefined();
    expect(requestProblem('dynamodb:Query', `${TABLE}/index/gsi1`)).toBeUndefined();
    expect(requestProblem('dynamodb:GetItem', `${TABLE}/index/gsi1`)).toMatch(/not an ARN of a resource type/);
    expect(requestProblem('dynamodb:GetItem', '*')).toMatch(/not an ARN of a resource type/);
    expect(requestProblem('dynamodb:Scan', TABLE)).toMatch(/not in the table of actions/);
    expect(requestProblem('sqs:SendMessage', 'arn:aws:sqs:us-east-1:000000000000:switchboard-events.fifo')).toBe(
      undefined,
    );
    expect(requestProblem('sqs:SendMessage', 'switchboard-events.fifo')).toMatch(/not an ARN/);
    expect(requestProblem('s3:GetObject', 'arn:aws:s3:::bucket/a/b.pdf')).toBeUndefined();
    expect(requestProblem('s3:GetObject', 'arn:aws:s3:::bucket')).toMatch(/not an ARN/);
    expect(requestProblem('s3:ListBucket', 'arn:aws:s3:::bucket')).toBeUndefined();
    expect(requestProblem('s3:ListBucket', 'arn:aws:s3:::bucket/key')).toMatch(/not an ARN/);
    expect(
      requestProblem('secretsmanager:GetSecretValue', 'arn:aws:secretsmanager:us-east-1:000000000000:secret:k-local'),
    ).toBeUndefined();
    expect(requestProblem('secretsmanager:GetSecretValue', 'switchboard-adminKey')).toMatch(/not an ARN/);
    expect(
      requestProblem('bedrock:InvokeModel', 'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0'),
    ).toBeUndefined();
    expect(
      requestProblem('bedrock:InvokeModel', 'arn:aws:bedrock:us-east-1:000000000000:inference-profile/eu.model-v1:0'),
    ).toBeUndefined();
    expect(
      requestProblem('bedrock:CountTokens', 'arn:aws:bedrock:us-east-1:000000000000:inference-profile/eu.model-v1:0'),
    ).toMatch(/not an ARN/);
    expect(requestProblem('textract:DetectDocumentText', '*')).toBeUndefined();
    expect(
      requestProblem('textract:DetectDocumentText', 'arn:aws:textract:us-east-1:000000000000:/adapters/a'),
    ).toMatch(/must name "\*"/);
  });
});
