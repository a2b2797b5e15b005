import { describe, expect, it } from 'vitest';
import { BotForbiddenError, BotNotFoundError } from '#shared/bots/index.ts';
import { GenerationFailedError, GenerationTimeoutError } from '#shared/completion/index.ts';
import { ForbiddenError } from '#shared/tenancy/index.ts';
import {
  ConflictError,
  type DomainError,
  NotFoundError,
  TemporarilyUnavailableError,
  ValidationError,
} from '#shared/kernel/domain-error.ts';
import type { DomainErrorCode } from '#shared/contract/error-codes.ts';
import { NoBotCreditsError } from '#shared/credits/index.ts';
import {
  ExtractionFailedError,
  ExtractionTimeoutError,
  FileTooLargeError,
  InvalidFileError,
} from '#shared/extract/index.ts';
import { HTTP_ANSWERS } from '#shared/http/domain-errors.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import { UnsupportedMediaTypeError, UploadTooLargeError } from '#shared/knowledge/index.ts';
import {
  ChannelNotFoundError,
  InvalidSignatureError,
  MessageNotFoundError,
  NoChannelCreditsError,
  NotSandboxChannelError,
  NotScheduledError,
  ProviderFailedError,
  RecipientOptedOutError,
  WindowClosedError,
} from '#shared/messaging/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { DependencyOverloadedError } from '#shared/kernel/overload.ts';
import { RateLimitedError } from '#shared/ratelimit/index.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

/** What the contract answers for each domain rule, written out here independently of the table. */
const CONTRACT: Record<DomainErrorCode, [status: number, code: string]> = {
  NOT_FOUND: [404, 'NOT_FOUND'],
  CHANNEL_NOT_FOUND: [404, 'CHANNEL_NOT_FOUND'],
  BOT_NOT_FOUND: [404, 'BOT_NOT_FOUND'],
  BOT_FORBIDDEN: [403, 'BOT_FORBIDDEN'],
  FORBIDDEN: [403, 'FORBIDDEN'],
  CONFLICT: [409, 'CONFLICT'],
  INVALID_INPUT: [400, 'VALIDATION_ERROR'],
  NO_BOT_CREDITS: [402, 'ERR_NO_BOT_CREDITS'],
  NO_CHANNEL_CREDITS: [402, 'PROVIDER_ERROR'],
  PROVIDER_FAILED: [502, 'PROVIDER_ERROR'],
  GENERATION_FAILED: [502, 'GENERATION_FAILED'],
  GENERATION_TIMEOUT: [504, 'GATEWAY_TIMEOUT'],
  EXTRACTION_FAILED: [502, 'EXTRACTION_FAILED'],
  EXTRACTION_TIMEOUT: [504, 'GATEWAY_TIMEOUT'],
  FILE_TOO_LARGE: [400, 'FILE_TOO_LARGE'],
  UPLOAD_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  INVALID_SIGNATURE: [403, 'INVALID_SIGNATURE'],
  MESSAGE_NOT_FOUND: [404, 'MESSAGE_NOT_FOUND'],
  RECIPIENT_OPTED_OUT: [409, 'RECIPIENT_OPTED_OUT'],
  WINDOW_CLOSED: [409, 'WINDOW_CLOSED'],
  NOT_SCHEDULED: [409, 'NOT_SCHEDULED'],
  TEMPORARILY_UNAVAILABLE: [503, 'SERVICE_UNAVAILABLE'],
  RATE_LIMITED: [429, 'RATE_LIMITED'],
};

/** One of every domain error a use case throws. */
const THROWN: DomainError[] = [
  new NotFoundError('project', 'Project prj_1 does not exist.'),
  new ChannelNotFoundError('ch_1'),
  new BotNotFoundError('bot_1'),
  new BotForbiddenError('bot_1'),
  new ForbiddenError('The viewer role may not do this; it takes the developer role.'),
  new ConflictError('This project already has an enabled general webhook; disable or delete it first.'),
  new ValidationError('The webhook URL must use https://.', [
    { path: 'url', message: 'Must be an https:// URL', code: 'invalid_format' },
  ]),
  new InvalidFileError('The file is not a PDF.', 'file', 'not_pdf'),
  new NoBotCreditsError(),
  new NoChannelCreditsError(),
  new ProviderFailedError('The sms provider failed: Twilio answered HTTP 500.', new Error('socket hang up')),
  new GenerationFailedError('The model service is busy; try again later.', { retryAfterSeconds: 9 }),
  new GenerationTimeoutError(1_000),
  new ExtractionFailedError('Every page is blank.'),
  new ExtractionTimeoutError(true),
  new FileTooLargeError(26_214_400),
  new UploadTooLargeError('Knowledge files are limited to 26214400 bytes (25 MB).'),
  new UnsupportedMediaTypeError('Knowledge files must be sent as text/plain; got image/png.'),
  new InvalidSignatureError(),
  new MessageNotFoundError('msg_1'),
  new RecipientOptedOutError([{ path: 'to', message: '+5511988887777 is suppressed', code: 'opted_out' }]),
  new WindowClosedError('2026-01-15T12:00:00.000Z'),
  new NotScheduledError('msg_1', 'sent'),
  new NotSandboxChannelError({ channelId: 'ch_1', provider: { kind: 'smtp', host: 'mx.example.com', port: 587 } }),
  new TemporarilyUnavailableError('The file could not be queued for processing; try again.', new Error('SQS down')),
  new RateLimitedError("This project's limit of 100 sends a second was reached; retry after 1 s.", 1),
];

let toThrow: unknown;
const handler = httpFunction(createLogger('test')).handler(async () => {
  throw toThrow;
});

async function answerTo(error: unknown) {
  toThrow = error;
  const res = await handler(apiEvent({ headers: { 'x-request-id': 'req-1' } }), lambdaContext);
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body) };
}

describe('domain errors at the HTTP edge', () => {
  it('maps every domain code to the status and error code the contract gives it', () => {
    expect(Object.keys(HTTP_ANSWERS).sort()).toEqual(Object.keys(CONTRACT).sort());
    for (const [domainCode, [status, code]] of Object.entries(CONTRACT)) {
      expect(HTTP_ANSWERS[domainCode as DomainErrorCode], domainCode).toEqual({ status, code });
    }
    expect(new Set(THROWN.map((e) => e.code))).toEqual(new Set(Object.keys(CONTRACT)));
  });

  it.each(THROWN.map((e) => [e.name, e] as const))('%s answers with the contract body', async (_, error) => {
    const [status, code] = CONTRACT[error.code];
    const res = await answerTo(error);
    expect(res.status).toBe(status);
    expect(res.headers['x-request-id']).toBe('req-1');
    expect(res.body).toEqual({
      success: false,
      error: code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...error.fields,
      requestId: 'req-1',
    });
  });

  it("puts WINDOW_CLOSED's closedAt at the top of the body (null when the contact never wrote)", async () => {
    expect((await answerTo(new WindowClosedError('2026-01-15T12:00:00.000Z'))).body.closedAt).toBe(
      '2026-01-15T12:00:00.000Z',
    );
    const never = await answerTo(new WindowClosedError(null));
    expect(never.status).toBe(409);
    expect(never.body).toHaveProperty('closedAt', null);
  });

  it('keeps the details of a validation error and the Retry-After of a throttled generation', async () => {
    const invalid = await answerTo(new InvalidFileError('The file is encrypted.', 'file', 'encrypted'));
    expect(invalid.body.details).toEqual([{ path: 'file', message: 'The file is encrypted.', code: 'encrypted' }]);
    const throttled = await answerTo(new GenerationFailedError('busy.', { retryAfterSeconds: 9 }));
    expect(throttled.headers['Retry-After']).toBe('9');
    expect((await answerTo(new GenerationFailedError('bad JSON.'))).headers['Retry-After']).toBeUndefined();
  });

  it('never shows the cause of a 5xx domain error; anything not a domain error stays a hidden 500', async () => {
    const failed = await answerTo(new ProviderFailedError('The sms provider failed.', new Error('password=hunter2')));
    expect(JSON.stringify(failed.body)).not.toContain('hunter2');
    const hidden = await answerTo(new Error('connect ECONNREFUSED 10.0.0.7'));
    expect(hidden.status).toBe(500);
    expect(hidden.body).toMatchObject({ error: 'INTERNAL_ERROR', message: 'An unexpected error occurred.' });
  });
});

/** An error as the AWS SDK throws it when a service throttles the call. */
function awsError(name: string, message = 'Rate exceeded'): Error {
  return Object.assign(new Error(message), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

describe('overload at the HTTP edge', () => {
  it.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'RequestThrottled',
    'SlowDown',
  ])(
    '%s from a store or queue answers 503 SERVICE_UNAVAILABLE with Retry-After, naming nothing of AWS',
    async (name) => {
      const res = await answerTo(
        awsError(name, 'The level of configured provisioned throughput for the table was exceeded'),
      );
      expect(res.status).toBe(503);
      expect(res.headers['Retry-After']).toBe('1');
      expect(res.body).toMatchObject({ success: false, error: 'SERVICE_UNAVAILABLE', requestId: 'req-1' });
      expect(JSON.stringify(res.body)).not.toMatch(/throughput|Exception|Throttl/);
    },
  );

  it('finds the throttle under an adapter that wrapped it, and in our own "left unprocessed" error', async () => {
    const wrapped = new Error('message record failed', { cause: awsError('ProvisionedThroughputExceededException') });
    expect((await answerTo(wrapped)).status).toBe(503);
    expect((await answerTo(new DependencyOverloadedError('DynamoDB left batch items unprocessed'))).status).toBe(503);
  });

  it("AWS's InternalServerError is an overload; another library's error of that name is a hidden 500", async () => {
    expect((await answerTo(Object.assign(awsError('InternalServerError'), { $fault: 'server' }))).status).toBe(503);
    expect((await answerTo(Object.assign(new Error('boom'), { name: 'InternalServerError' }))).status).toBe(500);
  });

  it('a domain error keeps its own answer even when a throttle caused it; a refused queue gets Retry-After', async () => {
    const refunded = new ProviderFailedError('The sms provider failed.', awsError('ThrottlingException'));
    expect((await answerTo(refunded)).status).toBe(502);
    const queue = await answerTo(new TemporarilyUnavailableError('Not queued.', awsError('RequestThrottled')));
    expect(queue.status).toBe(503);
    expect(queue.headers['Retry-After']).toBe('1');
    const limited = await answerTo(new RateLimitedError('Over the limit.', 3));
    expect(limited.status).toBe(429);
    expect(limited.headers['Retry-After']).toBe('3');
  });
});
