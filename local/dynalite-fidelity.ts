import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';

/** Reads an item as it is now (consistently), around the throttle (./throttle.ts). */
export type ReadItem = (key: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;

/**
 * What DynamoDB answers and dynalite leaves out: a conditional write refused with
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD` carries the item as it was (`Item` in the error body). The rate
 * limiter learns a full bucket's time from it and refuses the next requests without writing; without it, every
 * refusal here would cost writes that on AWS it does not. Only refused writes that asked for it are touched.
 */
export function returnItemOnConditionFailure(server: Server, readItem: ReadItem): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!/\.(UpdateItem|PutItem|DeleteItem)$/.test(target)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const end = res.end.bind(res);
    const setHeader = res.setHeader.bind(res);
    const held: [string, number | string | readonly string[]][] = [];
    // Headers are held until the answer is known: a refusal's body (and so its length and checksum) may change.
    res.setHeader = (name: string, value: number | string | readonly string[]) => {
      held.push([name, value]);
      return res;
    };
    res.end = ((body?: unknown) => {
      const text = body === undefined ? '' : String(body);
      const finish = (out: string) => {
        for (const [name, value] of held) {
          if (/^content-length$/i.test(name)) setHeader(name, Buffer.byteLength(out));
          else if (/^x-amz-crc32$/i.test(name)) setHeader(name, crc32(out));
          else setHeader(name, value);
        }
        return end(out);
      };
      if (res.statusCode !== 400 || !text.includes('ConditionalCheckFailedException')) return finish(text);
      let request: { Key?: Record<string, unknown>; Item?: Record<string, unknown>; [k: string]: unknown };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return finish(text);
      }
      if (request.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD') return finish(text);
      const key = request.Key ?? keyOf(request.Item ?? {});
      readItem(key).then(
        (item) => finish(item ? JSON.stringify({ ...JSON.parse(text), Item: item }) : text),
        () => finish(text),
      );
      return res;
    }) as ServerResponse['end'];
  });
}

const keyOf = (item: Record<string, unknown>) => ({ pk: item.pk, sk: item.sk });
