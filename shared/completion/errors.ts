import { HttpError } from '../http/errors.ts';

/** 402 ERR_NO_BOT_CREDITS: the month's bot credits are spent; nothing was charged. */
export class NoBotCreditsError extends HttpError {
  constructor() {
    super(402, 'ERR_NO_BOT_CREDITS', 'The project has no bot credits left this month; nothing was charged.');
    this.name = 'NoBotCreditsError';
  }
}

/** 502 GENERATION_FAILED: the model failed or its answer was unusable; the credit was refunded. */
export class GenerationFailedError extends HttpError {
  constructor(reason: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(502, 'GENERATION_FAILED', `Generation failed: ${reason} The credit was refunded.`, {
      cause: options.cause,
      headers: options.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(options.retryAfterSeconds) },
    });
    this.name = 'GenerationFailedError';
  }
}

/** 504 GATEWAY_TIMEOUT: `timeoutMs` passed; the model call was aborted and the credit refunded. */
export class GenerationTimeoutError extends HttpError {
  constructor(timeoutMs: number, cause?: unknown) {
    super(
      504,
      'GATEWAY_TIMEOUT',
      `Generation did not finish within timeoutMs (${timeoutMs} ms); it was stopped and the credit was refunded.`,
      { cause },
    );
    this.name = 'GenerationTimeoutError';
  }
}
