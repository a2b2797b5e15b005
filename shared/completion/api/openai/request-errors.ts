/**
 * What the OpenAI-format routes refuse before any work, in OpenAI's words: the `param` a problem is about and OpenAI's
 * `code` for it, so every OpenAI client shows the caller the same error OpenAI would have.
 */

/**
 * A request OpenAI would refuse or that this service cannot honour: 400 with OpenAI's `param` and `code`
 * (`unsupported_parameter`, `unknown_parameter`, `invalid_value`, `missing_required_parameter`,
 * `context_length_exceeded`).
 */
export class OpenAiRequestError extends Error {
  readonly param: string | null;
  readonly code: string;

  constructor(message: string, param: string | null, code: string) {
    super(message);
    this.name = 'OpenAiRequestError';
    this.param = param;
    this.code = code;
  }
}

export const unsupported = (param: string, what: string) =>
  new OpenAiRequestError(`${what} is not supported by this API.`, param, 'unsupported_parameter');
export const invalid = (param: string | null, message: string) =>
  new OpenAiRequestError(message, param, 'invalid_value');
export const unknownParameter = (param: string) =>
  new OpenAiRequestError(`Unrecognized request argument supplied: ${param}.`, param, 'unknown_parameter');
export const missing = (param: string) =>
  new OpenAiRequestError(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');

/** Null and absent are the same to every OpenAI client (the Python SDK sends explicit nulls). */
export const present = (value: unknown) => value !== undefined && value !== null;

/** Refuses the fields of `value` outside `allowed`: a field nobody defined is a typo or a feature we lack. */
export function onlyKnownFields(value: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) throw unknownParameter(at ? `${at}.${key}` : key);
}
