import { request } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway } from '#test/support/gateway.ts';

const events: APIGatewayProxyEvent[] = [];
const starting = listenGateway({
  handlers: {
    admin: async (event) => {
      events.push(event);
      if (event.path.endsWith('/binary'))
        return {
          statusCode: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.from([0, 1, 2, 255]).toString('base64'),
          isBase64Encoded: true,
        };
      return { statusCode: 201, headers: { 'content-type': 'text/plain' }, body: 'ok' };
    },
    fallback: async () => ({ statusCode: 404, body: 'nf' }),
  },
});
let base = '';
let close: () => Promise<void>;
beforeAll(async () => {
  ({ base, close } = await starting);
});
afterAll(() => close());

describe('local gateway: API Gateway REST proxy events', () => {
  it('passes JSON as text and PDF / multipart as base64, like a REST API with binary media types', async () => {
    await fetch(`${base}/admin/v1/projects/p%20x/knowledge?a=1&a=2&b=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Custom': 'v' },
      body: '{"é":1}',
    });
    const json = events.at(-1)!;
    expect(json).toMatchObject({
      resource: '/admin/v1/{proxy+}',
      path: '/admin/v1/projects/p%20x/knowledge',
      httpMethod: 'POST',
      body: '{"é":1}',
      isBase64Encoded: false,
      pathParameters: { proxy: 'projects/p x/knowledge' },
      queryStringParameters: { a: '2', b: '3' },
      multiValueQueryStringParameters: { a: ['1', '2'], b: ['3'] },
    });
    expect(json.headers['X-Custom']).toBe('v');
    expect(json.requestContext.requestTimeEpoch).toBeGreaterThan(0);

    const pdf = Buffer.from('%PDF-1.7\n\xff\x00binary', 'latin1');
    await fetch(`${base}/admin/v1/x`, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: pdf });
    expect(events.at(-1)!.isBase64Encoded).toBe(true);
    expect(Buffer.from(events.at(-1)!.body!, 'base64').equals(pdf)).toBe(true);

    const form = new FormData();
    form.append('file', new Blob([pdf]), 'a.pdf');
    await fetch(`${base}/admin/v1/x`, { method: 'POST', body: form });
    expect(events.at(-1)!.isBase64Encoded).toBe(true);

    await fetch(`${base}/admin/v1/x`, { method: 'GET' });
    expect(events.at(-1)!).toMatchObject({ body: null, isBase64Encoded: false });
  });

  it('passes query parameters and headers named like Object.prototype members as plain values', async () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty'];
    const query = names.map((n, i) => `${n}=q${i}&${n}=r${i}`).join('&');
    // node:http, not fetch: fetch leaves out a header named __proto__.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/admin/v1/x?${query}`, {
        headers: Object.fromEntries(names.map((n, i) => [n, `h${i}`])),
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(201);
    const event = events.at(-1)!;
    names.forEach((name, i) => {
      expect(Object.getOwnPropertyDescriptor(event.queryStringParameters, name)?.value).toBe(`r${i}`);
      expect(Object.getOwnPropertyDescriptor(event.multiValueQueryStringParameters, name)?.value).toEqual([
        `q${i}`,
        `r${i}`,
      ]);
      const sent = Object.keys(event.headers).find((h) => h.toLowerCase() === name.toLowerCase())!;
      expect(Object.getOwnPropertyDescriptor(event.headers, sent)?.value).toBe(`h${i}`);
      expect(Object.getOwnPropertyDescriptor(event.multiValueHeaders, sent)?.value).toEqual([`h${i}`]);
    });
  });

  it('decodes a base64 response body and sends other paths to the fallback function', async () => {
    const res = await fetch(`${base}/admin/v1/binary`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));
    const missing = await fetch(`${base}/nothing/here`);
    expect(missing.status).toBe(404);
  });
});
