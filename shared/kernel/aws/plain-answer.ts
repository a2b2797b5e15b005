import type { Readable } from 'node:stream';
import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandInput,
  type BatchGetItemCommandOutput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  type GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;
/** What a read's answer holds, in DynamoDB's form: one item, or a batch's items and the keys left for later. */
type Answer = {
  Item?: Item;
  Responses?: Record<string, Item[]>;
  UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
};
type Plain<T> = Omit<T, '$metadata'>;

/**
 * Sends a low-level read written and read as the JSON DynamoDB speaks: the input, already in DynamoDB's form, is the
 * request's body as it stands (`JSON.stringify`), and a successful answer (200) is taken as the JSON it is, so the
 * SDK's walk of both against the operation's schema (each map, list and attribute visited through it) is left out.
 * For the read on every request with a project key, where that walk was most of what a read's CPU adds to a request.
 * The rest is the SDK's, on the same client: the endpoint, the headers, signing, retries, and every answer but a 200
 * of JSON (an error or a throttle is read by the SDK as before, with its types). The input must hold no binary value
 * (keys of strings): it is not encoded here. Binary values in the answer are decoded as the SDK decodes them. Only the
 * command's data comes back (no `$metadata`).
 */
export function sendPlainly(
  client: DynamoDBClient,
  operation: 'GetItem',
  input: GetItemCommandInput,
): Promise<Plain<GetItemCommandOutput>>;
export function sendPlainly(
  client: DynamoDBClient,
  operation: 'BatchGetItem',
  input: BatchGetItemCommandInput,
): Promise<Plain<BatchGetItemCommandOutput>>;
export async function sendPlainly(
  client: DynamoDBClient,
  operation: 'GetItem' | 'BatchGetItem',
  input: GetItemCommandInput | BatchGetItemCommandInput,
): Promise<unknown> {
  // The two commands share their middleware stack's type; one cast serves both.
  const command = (
    operation === 'GetItem'
      ? new GetItemCommand(input as GetItemCommandInput)
      : new BatchGetItemCommand(input as BatchGetItemCommandInput)
  ) as GetItemCommand;
  let answer: Answer | undefined;
  command.middlewareStack.add(
    (next, context) => async (args) => {
      // What the SDK's own writer sends for this protocol, less the schema's walk: the endpoint resolved for this
      // call (its URL's query and headers too), the JSON protocol's headers, the input as the body.
      const endpoint = (context as { endpointV2?: { url: URL; headers?: Record<string, string[]> } }).endpointV2;
      if (!endpoint) throw new Error('sendPlainly: no endpoint was resolved for the call');
      const { url } = endpoint;
      const headers: Record<string, string> = {};
      for (const [name, values] of Object.entries(endpoint.headers ?? {})) headers[name] = values.join(', ');
      headers['content-type'] = 'application/x-amz-json-1.0';
      headers['x-amz-target'] = `DynamoDB_20120810.${operation}`;
      const request = {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`,
        query: Object.fromEntries(url.searchParams),
        headers,
        body: JSON.stringify(args.input),
      };
      return next({ ...args, request });
    },
    // In place of the SDK's writer (the same name, step and priority: the stack takes this one for this call).
    { step: 'serialize', name: 'serializerMiddleware', override: true, tags: ['SERIALIZER'] },
  );
  command.middlewareStack.add(
    (next) => async (args) => {
      answer = undefined;
      const result = await next(args);
      const response = result.response as { statusCode?: number; body?: unknown };
      if (response.statusCode !== 200 || !isReadable(response.body)) return result;
      const bytes = await collect(response.body);
      try {
        answer = decodeBinary(JSON.parse(bytes.toString('utf8')) as Answer);
        // The SDK's reader then finds an empty answer and adds only the call's metadata.
        response.body = new Uint8Array(0);
      } catch {
        answer = undefined;
        response.body = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
      return result;
    },
    // Low priority within the deserialize step runs inside the SDK's reader: this sees the answer before it does.
    { step: 'deserialize', priority: 'low', name: 'plainAnswer' },
  );
  const output = await client.send(command);
  return answer ?? output;
}

function isReadable(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.[Symbol.asyncIterator] === 'function';
}

/** The answer's bytes, read off its stream with plain listeners (an async iterator costs more per answer). */
function collect(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', reject);
  });
}

const bytesOf = (base64: string) => {
  const b = Buffer.from(base64, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};

/** `B` and `BS` come as base64 text; the SDK hands them over as bytes. */
function decodeBinary(answer: Answer): Answer {
  const visit = (value: AttributeValue): void => {
    const v = value as unknown as Record<string, unknown>;
    if (typeof v.B === 'string') v.B = bytesOf(v.B);
    if (Array.isArray(v.BS)) v.BS = v.BS.map(bytesOf);
    if (Array.isArray(v.L)) for (const item of v.L) visit(item);
    if (v.M && typeof v.M === 'object') for (const item of Object.values(v.M)) visit(item);
  };
  const items = [
    ...(answer.Item ? [answer.Item] : []),
    ...Object.values(answer.Responses ?? {}).flat(),
    ...Object.values(answer.UnprocessedKeys ?? {}).flatMap((k) => k.Keys ?? []),
  ];
  for (const item of items) for (const value of Object.values(item)) visit(value);
  return answer;
}
