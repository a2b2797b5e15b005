import { describe, expect, it } from 'vitest';
import { HttpError } from '#shared/http/errors.ts';
import { httpFunction, jsonBody, JSON_BODY_LIMIT_BYTES, validateBody } from '#shared/http/middleware.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

const schema = z.strictObject({
  name: z.string().check(z.minLength(1)),
  count: z.optional(z.number().check(z.int(), z.lte(5))),
});
let parsedCalls = 0;
const handler = httpFunction<HttpEvent<z.output<typeof schema>>>(createLogger('test'))
  .use(jsonBody())
  .use(validateBody(schema, { channelType: 'channelType is derived from the token' }))
  .handler<HttpEvent>(async (event: HttpEvent<z.output<typeof schema>>) => {
    parsedCalls++;
    if (event.parsedBody.name === 'boom') throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    if (event.parsedBody.name === 'teapot')
      throw new HttpError(418, 'TEAPOT', 'short and stout', { headers: { 'x-extra': '1' } });
    return json(200, { success: true, name: event.parsedBody.name });
  });

const call = async (body: string | null, headers: Record<string, string> = {}, base64 = false) => {
  const res = await handler(apiEvent({ body, headers, base64 }), lambdaContext);
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body) };
};

describe('HTTP conventions (one middy stack for every function)', () => {
  it('answers 413 PAYLOAD_TOO_LARGE above 10 MB without parsing the body', async () => {
    const before = parsedCalls;
    const huge = `{"name":"${'x'.repeat(JSON_BODY_LIMIT_BYTES)}"}`;
    const res = await call(huge);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: 'PAYLOAD_TOO_LARGE' });
    expect(parsedCalls).toBe(before);
    const b64 = await call(Buffer.from(huge).toString('base64'), {}, true);
    expect(b64.status).toBe(413);
  });

  it('answers 400 INVALID_JSON for a body that does not parse, and VALIDATION_ERROR for a non-object', async () => {
    expect((await call('{"name":')).body.error).toBe('INVALID_JSON');
    expect((await call(null)).body.error).toBe('INVALID_JSON');
    for (const top of ['[]', '"x"', '1', 'null']) {
      const res = await call(top);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
  });

  it('lists every problem at once in details[], one per unknown field', async () => {
    const res = await call(JSON.stringify({ count: 9, channelType: 'sms', extra: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    const byPath = Object.fromEntries(res.body.details.map((d: any) => [d.path, d]));
    expect(Object.keys(byPath).sort()).toEqual(['channelType', 'count', 'extra', 'name']);
    expect(byPath.channelType.message).toBe('channelType is derived from the token');
    expect(byPath.channelType.code).toBe('unrecognized_keys');
    expect(byPath.count.code).toBe('too_big');
    const proto = await call('{"name":"a","constructor":1,"toString":2}');
    expect(proto.body.details.map((d: any) => d.message)).toEqual([
      'Unknown field "constructor"',
      'Unknown field "toString"',
    ]);
  });

  it('hides the cause of an unexpected failure behind 500 INTERNAL_ERROR', async () => {
    const res = await call(JSON.stringify({ name: 'boom' }), { 'x-request-id': 'trace-1' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: 'INTERNAL_ERROR',
      message: expect.any(String),
      requestId: 'trace-1',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|hunter2|10\.0\.0\.7|stack/);
    expect(res.headers['x-request-id']).toBe('trace-1');
  });

  it('passes a deliberate error through with its code and headers', async () => {
    const res = await call(JSON.stringify({ name: 'teapot' }));
    expect(res.status).toBe(418);
    expect(res.body).toMatchObject({ success: false, error: 'TEAPOT', message: 'short and stout' });
    expect(res.headers['x-extra']).toBe('1');
  });
});
