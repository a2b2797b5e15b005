import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { listenHttp1And2 } from '#local/aws/wire.ts';

/** One AWS API call a function made, as IAM sees it: who, which action, on which resource. */
export interface AwsCall {
  /** The function (its access key id in bundles mode). */
  fn: string;
  /** `dynamodb:GetItem`, `sqs:SendMessage`, `s3:PutObject`... */
  action: string;
  /** The ARN the call names (`*` for services without resources). */
  resource: string;
  /** IAM condition keys the request carries (`sts:ExternalId`), for a statement that allows only under a condition. */
  context?: Record<string, string>;
  /**
   * Set when the call was signed with credentials STS issued to `fn` for a customer's role (a webhook destination):
   * that role's own account judges the call, not the stack's IAM.
   */
  role?: string;
}

export interface AwsFrontOptions {
  region: string;
  account: string;
  /** Where DynamoDB calls go (dynalite). */
  dynamoEndpoint: string;
  /** Where SQS, SNS and S3 calls go (fauxqs). */
  queuesAndBucketsEndpoint: string;
  /** The runner's other stand-ins (local/aws/stand-ins.ts), by name. */
  standIns: { sts: string; eventbridge: string; kinesis: string };
  /** Where SES v2 calls go (the runner's SES stand-in); without it they are recorded and refused. */
  sesEndpoint?: string;
  /** Secrets Manager's answers: secret ARN → value. */
  secrets: Record<string, string>;
}

export interface AwsFront {
  endpoint: string;
  /** Every call recorded so far, in arrival order. */
  calls: AwsCall[];
  stop(): Promise<void>;
}

/**
 * What the functions of bundles mode see as AWS: one endpoint in front of the stand-ins (dynalite for DynamoDB,
 * fauxqs for SQS, SNS and S3, the runner's own for STS, EventBridge, Kinesis and SES v2) that serves Secrets Manager itself
 * and records each call as IAM would evaluate it, by the caller's access key (each function gets its own: its name),
 * so the IAM check can hold the calls against that function's role. Credentials a function got from STS for a
 * customer's role are known by the key STS answered with: their calls are recorded under that role. Recording at the
 * wire, not in an SDK middleware, sees exactly what the bundle sends, whatever client or version it carries; HTTP/2
 * is taken too (Kinesis's client speaks it by default). Services with no stand-in (Bedrock, Textract) are recorded
 * and refused.
 */
export async function startAwsFront(options: AwsFrontOptions): Promise<AwsFront> {
  const calls: AwsCall[] = [];
  /** Access keys STS issued through the front: the function that asked, and the role. */
  const issued = new Map<string, { fn: string; role: string }>();
  const server = await listenHttp1And2((req, res) => {
    handle(req as IncomingMessage, res as ServerResponse, options, calls, issued).catch((error: unknown) => {
      const out = res as ServerResponse;
      if (!out.headersSent) out.writeHead(500, { 'content-type': 'application/json' });
      out.end(JSON.stringify({ __type: 'InternalFailure', message: String(error) }));
    });
  }, 0);
  return { endpoint: server.endpoint, calls, stop: () => server.stop() };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: AwsFrontOptions,
  calls: AwsCall[],
  issued: Map<string, { fn: string; role: string }>,
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const signer = signerOf(req, url, body);
  const service = signer?.service ?? 's3';
  const key = signer?.accessKey ?? 'anonymous';
  const caller = issued.get(key) ?? { fn: key };
  const recorded = callsOf(service, req, url, body, options);
  for (const call of recorded) calls.push({ ...caller, ...call });

  if (service === 'dynamodb') return forward(req, res, body, options.dynamoEndpoint);
  if (service === 'sqs' || service === 's3' || service === 'sns')
    return forward(req, res, body, options.queuesAndBucketsEndpoint);
  if (service === 'events') return forward(req, res, body, options.standIns.eventbridge);
  if (service === 'kinesis') return forward(req, res, body, options.standIns.kinesis);
  if (service === 'sts') {
    const answer = await forward(req, res, body, options.standIns.sts, true);
    const accessKey = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(answer.toString('utf8'))?.[1];
    const role = recorded[0]?.action === 'sts:AssumeRole' ? recorded[0].resource : undefined;
    if (accessKey && role) issued.set(accessKey, { fn: caller.fn, role });
    return;
  }
  if (service === 'ses' && options.sesEndpoint) return forward(req, res, body, options.sesEndpoint);
  if (service === 'secretsmanager') return answerSecret(res, body, options);
  res.writeHead(501, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(
    JSON.stringify({
      __type: 'UnrecognizedClientException',
      message: `No local stand-in for ${service}: bundles mode runs without it.`,
    }),
  );
}

/** The access key and service of a SigV4 signature: header, presigned URL, or presigned POST form. */
function signerOf(req: IncomingMessage, url: URL, body: Buffer): { accessKey: string; service: string } | undefined {
  const credential =
    /Credential=([^,\s]+)/.exec(req.headers.authorization ?? '')?.[1] ??
    url.searchParams.get('X-Amz-Credential') ??
    (String(req.headers['content-type']).startsWith('multipart/form-data')
      ? /name="x-amz-credential"\r\n\r\n([^\r]+)/i.exec(body.toString('latin1'))?.[1]
      : undefined);
  if (!credential) return undefined;
  const [accessKey, , , service] = credential.split('/');
  return accessKey && service ? { accessKey, service } : undefined;
}

type Call = Omit<AwsCall, 'fn'>;

/** The request fields of the JSON protocols (DynamoDB, SQS, Secrets Manager) that name a resource. */
interface JsonInput {
  TableName?: string;
  IndexName?: string;
  RequestItems?: Record<string, unknown>;
  TransactItems?: Record<string, { TableName: string }>[];
  QueueUrl?: string;
  SecretId?: string;
  /** EventBridge's PutEvents. */
  Entries?: { EventBusName?: string }[];
  /** Kinesis. */
  StreamName?: string;
  StreamARN?: string;
}

function callsOf(service: string, req: IncomingMessage, url: URL, body: Buffer, o: AwsFrontOptions): Call[] {
  const target = String(req.headers['x-amz-target'] ?? '');
  const json = (): JsonInput => (body.length ? (JSON.parse(body.toString('utf8')) as JsonInput) : {});
  if (service === 'dynamodb') return dynamoCalls(target.split('.').pop() ?? '', json(), o);
  if (service === 'sqs') {
    const form = String(req.headers['content-type']).includes('x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(body.toString('utf8')))
      : undefined;
    const action = form?.Action ?? target.split('.').pop() ?? '';
    const queueUrl: string | undefined = form?.QueueUrl ?? json().QueueUrl;
    const name = queueUrl?.split('/').pop();
    const iamAction = action.replace(/Batch$/, '');
    return [{ action: `sqs:${iamAction}`, resource: name ? `arn:aws:sqs:${o.region}:${o.account}:${name}` : '*' }];
  }
  if (service === 's3') return s3Calls(req.method ?? 'GET', url, body, req);
  if (service === 'sts' || service === 'sns') return queryCalls(service, body, o);
  if (service === 'events') {
    const buses = new Set((json().Entries ?? []).map((e) => e.EventBusName || 'default'));
    return [...buses].map((bus) => ({
      action: `events:${target.split('.').pop()}`,
      resource: bus.startsWith('arn:') ? bus : `arn:aws:events:${o.region}:${o.account}:event-bus/${bus}`,
    }));
  }
  if (service === 'kinesis') {
    const input = json();
    const stream =
      input.StreamARN ?? (input.StreamName && `arn:aws:kinesis:${o.region}:${o.account}:stream/${input.StreamName}`);
    return [{ action: `kinesis:${target.split('.').pop()}`, resource: stream || '*' }];
  }
  if (service === 'ses') return sesCalls(req.method ?? 'GET', url, body, o);
  if (service === 'secretsmanager') {
    return [{ action: `secretsmanager:${target.split('.').pop()}`, resource: String(json().SecretId ?? '*') }];
  }
  if (service === 'bedrock') {
    const [, kind, rawModel, operation] = url.pathname.split('/');
    if (kind !== 'model' || !rawModel) return [{ action: 'bedrock:Unknown', resource: '*' }];
    const model = decodeURIComponent(rawModel);
    const action =
      operation === 'count-tokens'
        ? 'CountTokens'
        : operation?.endsWith('stream')
          ? 'InvokeModelWithResponseStream'
          : 'InvokeModel';
    const arn = model.startsWith('arn:')
      ? model
      : /^(us|eu|apac|us-gov|jp|au|ca|global)\./.test(model)
        ? `arn:aws:bedrock:${o.region}:${o.account}:inference-profile/${model}`
        : `arn:aws:bedrock:${o.region}::foundation-model/${model}`;
    return [{ action: `bedrock:${action}`, resource: arn }];
  }
  // Textract and the like: the action from the target, no resource type.
  return [{ action: `${service}:${target.split('.').pop() ?? 'Unknown'}`, resource: '*' }];
}

/** STS and SNS (the query protocol: a form with `Action`): the role assumed, with its external id; the topic. */
function queryCalls(service: 'sts' | 'sns', body: Buffer, o: AwsFrontOptions): Call[] {
  const form = new URLSearchParams(body.toString('utf8'));
  const action = `${service}:${form.get('Action') ?? 'Unknown'}`;
  if (service === 'sts') {
    const externalId = form.get('ExternalId');
    return [
      {
        action,
        resource: form.get('RoleArn') ?? '*',
        ...(externalId !== null ? { context: { 'sts:ExternalId': externalId } } : {}),
      },
    ];
  }
  const topic =
    form.get('TopicArn') ?? (form.get('Name') && `arn:aws:sns:${o.region}:${o.account}:${form.get('Name')}`);
  return [{ action, resource: topic || '*' }];
}

function dynamoCalls(operation: string, input: JsonInput, o: AwsFrontOptions): Call[] {
  const table = (name: string, index?: string) =>
    `arn:aws:dynamodb:${o.region}:${o.account}:table/${name}${index ? `/index/${index}` : ''}`;
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    return Object.keys(input.RequestItems ?? {}).map((name) => ({
      action: `dynamodb:${operation}`,
      resource: table(name),
    }));
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const kinds: Record<string, string> = {
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      ConditionCheck: 'ConditionCheckItem',
      Get: 'GetItem',
    };
    return (input.TransactItems ?? []).flatMap((item) =>
      Object.entries(item).map(([kind, op]) => ({
        action: `dynamodb:${kinds[kind] ?? kind}`,
        resource: table(op.TableName),
      })),
    );
  }
  return [
    { action: `dynamodb:${operation}`, resource: input.TableName ? table(input.TableName, input.IndexName) : '*' },
  ];
}

/** SES v2's REST calls the functions make, as the IAM actions and resources they need. */
function sesCalls(method: string, url: URL, body: Buffer, o: AwsFrontOptions): Call[] {
  const arn = (kind: string, name: string) => `arn:aws:ses:${o.region}:${o.account}:${kind}/${name}`;
  if (method === 'POST' && url.pathname === '/v2/email/outbound-emails') {
    const input = JSON.parse(body.toString('utf8') || '{}') as {
      FromEmailAddress?: string;
      FromEmailAddressIdentityArn?: string;
      ConfigurationSetName?: string;
    };
    // The identity a message is sent as: the one named, else the domain of its From address (what is verified).
    const address = /<([^>]*)>\s*$/.exec(input.FromEmailAddress ?? '')?.[1] ?? input.FromEmailAddress ?? '';
    const identity = input.FromEmailAddressIdentityArn ?? arn('identity', address.split('@').pop() || '*');
    return [
      { action: 'ses:SendEmail', resource: identity },
      ...(input.ConfigurationSetName
        ? [{ action: 'ses:SendEmail', resource: arn('configuration-set', input.ConfigurationSetName) }]
        : []),
    ];
  }
  if (method === 'GET' && url.pathname === '/v2/email/account') return [{ action: 'ses:GetAccount', resource: '*' }];
  return [{ action: 'ses:Unknown', resource: '*' }];
}

/** S3's REST calls (path style: `/bucket/key`) as the IAM actions they need. */
function s3Calls(method: string, url: URL, body: Buffer, req: IncomingMessage): Call[] {
  const [, bucket = '', ...keyParts] = url.pathname.split('/');
  const key = keyParts.map(decodeURIComponent).join('/');
  const object = (k: string) => ({ resource: `arn:aws:s3:::${decodeURIComponent(bucket)}/${k}` });
  const has = (param: string) => url.searchParams.has(param);
  if (!key) {
    if (method === 'POST' && has('delete')) {
      const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
      return keys.map((k) => ({ action: 's3:DeleteObject', ...object(k) }));
    }
    if (method === 'POST' && String(req.headers['content-type']).startsWith('multipart/form-data')) {
      const formKey = /name="key"\r\n\r\n([^\r]*)/.exec(body.toString('latin1'))?.[1] ?? '';
      return [{ action: 's3:PutObject', ...object(formKey) }];
    }
    const action = has('location')
      ? 's3:GetBucketLocation'
      : has('uploads')
        ? 's3:ListBucketMultipartUploads'
        : 's3:ListBucket';
    return [{ action, resource: `arn:aws:s3:::${decodeURIComponent(bucket)}` }];
  }
  if (method === 'GET' || method === 'HEAD')
    return [{ action: has('uploadId') ? 's3:ListMultipartUploadParts' : 's3:GetObject', ...object(key) }];
  if (method === 'DELETE')
    return [{ action: has('uploadId') ? 's3:AbortMultipartUpload' : 's3:DeleteObject', ...object(key) }];
  const copySource = req.headers['x-amz-copy-source'];
  return [
    { action: 's3:PutObject', ...object(key) },
    ...(typeof copySource === 'string'
      ? [{ action: 's3:GetObject', resource: `arn:aws:s3:::${decodeURIComponent(copySource.replace(/^\//, ''))}` }]
      : []),
  ];
}

function answerSecret(res: ServerResponse, body: Buffer, options: AwsFrontOptions): void {
  const id = String((JSON.parse(body.toString('utf8') || '{}') as { SecretId?: string }).SecretId ?? '');
  const value = options.secrets[id];
  res.writeHead(value === undefined ? 400 : 200, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(
    JSON.stringify(
      value === undefined
        ? { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }
        : {
            ARN: id,
            Name: id.split(':').pop(),
            SecretString: value,
            VersionId: 'local',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: 0,
          },
    ),
  );
}

/** HTTP/2's own headers (pseudo-headers) and HTTP/1.1's connection headers, which the other protocol refuses. */
const NOT_FORWARDED = /^(:|connection$|keep-alive$|transfer-encoding$|upgrade$|proxy-connection$|http2-settings$)/;

/** Passes the call on (HTTP/1.1) and its answer back; resolves once sent, with the answer's body if `keep`. */
function forward(
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
  body: Buffer,
  endpoint: string,
  keep = false,
): Promise<Buffer> {
  const target = new URL(endpoint);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !NOT_FORWARDED.test(name)));
  return new Promise((resolve, reject) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        // The caller's host is kept (fauxqs writes it into the queue URLs it answers with).
        headers: {
          ...headers,
          host: String(req.headers.host ?? req.headers[':authority'] ?? target.host),
          'content-length': String(body.length),
        },
      },
      (answer) => {
        const answerHeaders = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !NOT_FORWARDED.test(name)),
        );
        // The HTTP/2 compatibility answer takes the same calls as HTTP/1.1's.
        const out = res as ServerResponse;
        out.writeHead(answer.statusCode ?? 502, answerHeaders);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          if (keep) chunks.push(chunk);
          out.write(chunk);
        });
        answer.on('end', () => {
          out.end();
          resolve(Buffer.concat(chunks));
        });
        answer.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}
