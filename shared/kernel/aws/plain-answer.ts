import type { Readable } from 'node:stream';
import type {
  AttributeValue,
  BatchGetItemCommand,
  BatchGetItemCommandOutput,
  DynamoDBClient,
  GetItemCommand,
  GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;
/** What a read's answer holds, in DynamoDB's form: one item, or a batch's items and the keys left for later. */
type Answer = {
  Item?: Item;
  Responses?: Record<string, Item[]>;
  UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
};

/**
 * Sends a low-level read whose successful answer (200) is taken as the JSON it is: DynamoDB's answer already is the
 * command's output in DynamoDB's form (`{ "Item": { "pk": { "S": … } } }`), so the SDK's walk of it against the
 * operation's schema (each map, list and attribute visited through the schema) is left out: for a read on every
 * request (a project key's), about as much CPU as the rest of the answer's handling. Everything else is the SDK's, on
 * the same client: the request, its signing, retries, and every other answer (an error or a throttle is read by the
 * SDK as before, with its types); an answer that is not JSON is handed to the SDK too. Binary values are decoded as
 * the SDK decodes them. Only the command's data comes back (no `$metadata`).
 */
export async function sendForPlainAnswer(
  client: DynamoDBClient,
  command: GetItemCommand,
): Promise<Omit<GetItemCommandOutput, '$metadata'>>;
export async function sendForPlainAnswer(
  client: DynamoDBClient,
  command: BatchGetItemCommand,
): Promise<Omit<BatchGetItemCommandOutput, '$metadata'>>;
export async function sendForPlainAnswer(
  client: DynamoDBClient,
  command: GetItemCommand | BatchGetItemCommand,
): Promise<unknown> {
  let answer: Answer | undefined;
  (command as GetItemCommand).middlewareStack.add(
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
  const output = await client.send(command as GetItemCommand);
  return answer ?? output;
}

function isReadable(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.[Symbol.asyncIterator] === 'function';
}

async function collect(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
