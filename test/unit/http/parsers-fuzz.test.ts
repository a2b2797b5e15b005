import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#shared/http/errors.ts';
import { parseJsonObjectBody } from '#shared/http/middleware.ts';
import { MultipartError, parseMultipart } from '#shared/http/multipart.ts';
import { bindRoutes, createRouter, route } from '#shared/http/router.ts';
import { json, type Context, type HttpEvent } from '#shared/http/types.ts';
import { compileFilePattern } from '#shared/knowledge/index.ts';
import { validateSendPayload } from '#shared/messaging/index.ts';
import { matchRoute } from '#shared/contract/route-match.ts';
import { routes } from '#shared/contract/routes.ts';
import { threadCpu } from '#test/support/thread-cpu.ts';

/**
 * Every parser that takes text from the internet, fuzzed with a time budget per input: whatever arrives, each
 * answers its result or its own typed error, and within a time that only linear work meets. The inputs are built
 * from runs of the characters each parser treats specially, where a backtracking pattern goes super-linear.
 * (The Markdown and HTML converters have their own file: test/unit/knowledge/text-pipeline-fuzz.test.ts.)
 */
const BUDGET_MS = 250;

/**
 * CPU milliseconds this process spent since `start` (a `process.cpuUsage()`), for asynchronous parsers, whose work
 * may leave the thread; synchronous ones are timed on their thread (../../support/thread-cpu.ts). The budget is on CPU,
 * not wall time, so a loaded machine (the other test files' services) does not make a linear parser look super-linear.
 */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function timed<T>(what: string, run: () => T): T {
  const { cpuMs: ms, result } = threadCpu(run);
  if (ms > BUDGET_MS) throw new Error(`${what} took ${Math.round(ms)} ms of CPU`);
  return result;
}

async function timedAsync<T>(what: string, run: () => Promise<T>): Promise<T> {
  const started = process.cpuUsage();
  const result = await run();
  const ms = cpuMsSince(started);
  if (ms > BUDGET_MS) throw new Error(`${what} took ${Math.round(ms)} ms of CPU`);
  return result;
}

/** Text made of runs (up to `maxRun` repeats) of the given pieces and of short random strings. */
const runsOf = (pieces: string[], maxRun = 2_000, maxRuns = 8) =>
  fc
    .array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...pieces), fc.integer({ min: 1, max: maxRun })).map(([p, n]) => p.repeat(n)),
        fc.string({ maxLength: 20 }),
      ),
      { minLength: 1, maxLength: maxRuns },
    )
    .map((parts) => parts.join(''));

const options = { numRuns: 150, endOnFailure: true };

describe('JSON body limits', () => {
  const event = (body: string, base64: boolean) =>
    ({ body: base64 ? Buffer.from(body).toString('base64') : body, isBase64Encoded: base64 }) as HttpEvent;
  const json = runsOf(['{', '}', '[', ']', '"', '\\', ':', ',', '1', 'e', ' ', '\\u00', 'null'], 20_000);

  it('answers an object, 400 or 413, in bounded time, for any text', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (body, base64) => {
        timed(`JSON body of ${body.length} chars`, () => {
          try {
            const parsed = parseJsonObjectBody(event(body, base64), 64 * 1024);
            expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
          } catch (error) {
            if (!(error instanceof HttpError) || ![400, 413].includes(error.status)) throw error;
          }
        });
      }),
      options,
    );
  });

  it('decides 413 on the size alone, before parsing, exactly at the limit', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 300 }), fc.boolean(), (text, base64) => {
        const size = Buffer.byteLength(text);
        const over = () => parseJsonObjectBody(event(text, base64), size - 1);
        expect(over).toThrow(expect.objectContaining({ status: 413, code: 'PAYLOAD_TOO_LARGE' }));
        try {
          parseJsonObjectBody(event(text, base64), size);
        } catch (error) {
          expect((error as HttpError).status).toBe(400);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('% file-name patterns', () => {
  const text = runsOf(['%', 'a', 'ab', '.', '%a', 'a%'], 500);
  it('match in bounded time however many % and however long the name', () => {
    fc.assert(
      fc.property(text, text, (pattern, name) => {
        timed(`pattern of ${pattern.length} on a name of ${name.length}`, () => compileFilePattern(pattern)(name));
      }),
      options,
    );
  });
});

describe('multipart form bodies', () => {
  const text = runsOf(
    ['--', '--b', '\r\n', '\r\n\r\n', '-', 'Content-Disposition: form-data; name="', '"', ';'],
    3_000,
  );
  it('answer a form or MultipartError in bounded time', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.constantFrom('b', '"b"', 'b; charset=x', ''), async (body, boundary) => {
        await timedAsync(`multipart body of ${body.length} bytes`, async () => {
          try {
            await parseMultipart([Buffer.from(body)], `multipart/form-data; boundary=${boundary}`, {
              fileSize: 64 * 1024,
            });
          } catch (error) {
            if (!(error instanceof MultipartError)) throw error;
          }
        });
      }),
      options,
    );
  });
});

describe('paths with % escapes', () => {
  const path = runsOf(['%', '%2', '%E0', '%A4', '/', '%2F', 'x', '{', '}', '..'], 500);
  const dispatch = createRouter(
    '/admin/v1',
    bindRoutes(
      {
        project: route({ method: 'GET', path: '/projects/{projectId}' }),
        bot: route({ method: 'GET', path: '/projects/{projectId}/bots/{botId}' }),
      },
      { project: async () => json(200, {}), bot: async () => json(200, {}) },
    ),
  );

  it('the management API router answers a route, 404 or 405 in bounded time, never a URIError', async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'POST'), async (p, method) => {
        await timedAsync(`path of ${p.length} chars`, async () => {
          try {
            await dispatch({ path: `/admin/v1/projects/${p}`, httpMethod: method } as HttpEvent, {} as Context);
          } catch (error) {
            if (!(error instanceof HttpError) || ![404, 405].includes(error.status)) throw error;
          }
        });
      }),
      options,
    );
  });

  it('the public route table matches in bounded time and decodes what it can', () => {
    fc.assert(
      fc.property(path, (p) => {
        const found = timed(`path of ${p.length} chars`, () => matchRoute(routes, 'POST', `/admin/v1/${p}`));
        expect(['route', 'wrong-method', 'none']).toContain(found.kind);
      }),
      options,
    );
  });
});

describe('send payloads: phone numbers and email addresses', () => {
  const address = runsOf(['a', '.', '@', '-', '+', '1', 'a.', '..', ' ', '\n'], 3_000);
  it('validate in bounded time and never throw', () => {
    fc.assert(
      fc.property(address, (value) => {
        timed(`address of ${value.length} chars`, () => {
          validateSendPayload('sms', { to: value, body: 'x' });
          validateSendPayload('email', { to: [value, value], subject: value, body: value });
          validateSendPayload('whatsapp', { number: value, body: 'x' });
        });
      }),
      options,
    );
  });
});
