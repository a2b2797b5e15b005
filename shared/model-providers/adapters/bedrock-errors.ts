import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { deadlineError, ModelError } from '../../models/index.ts';

/**
 * What Bedrock answers when it refuses or fails, in terms the caller can act on: throttling, service unavailability
 * and the model's own timeouts are not the caller's fault; a parameter the model does not take names that parameter.
 */

/** Suggested wait after Bedrock throttles; it sends no Retry-After of its own. */
const THROTTLE_RETRY_AFTER_SECONDS = 5;

/** An exception Bedrock sent inside the stream, as the error {@link mapBedrockError} expects. */
export function streamedException(event: ConverseStreamOutput): Error | undefined {
  const members = [
    ['internalServerException', 'InternalServerException'],
    ['modelStreamErrorException', 'ModelErrorException'],
    ['validationException', 'ValidationException'],
    ['throttlingException', 'ThrottlingException'],
    ['serviceUnavailableException', 'ServiceUnavailableException'],
  ] as const;
  for (const [member, name] of members) {
    const exception = (event as unknown as Record<string, { message?: string } | undefined>)[member];
    if (exception) return Object.assign(new Error(exception.message ?? name), { name });
  }
  return undefined;
}

/** Stop reasons that mean the answer must not be used. */
export function refuseStop(stopReason: string | undefined): void {
  if (stopReason === 'content_filtered' || stopReason === 'guardrail_intervened') {
    throw new ModelError('rejected', "The model's content filter blocked the answer.");
  }
  if (stopReason === 'model_context_window_exceeded') {
    throw new ModelError('too-long', "The prompt and instructions are too long for the model's context window.");
  }
  if (stopReason === 'malformed_model_output') throw new ModelError('failed', 'The model produced a malformed answer.');
}

export function isSystemPromptRefusal(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'ValidationException' &&
    /system (message|prompt)s?/i.test(e.message ?? '') &&
    /support/i.test(e.message ?? '')
  );
}

export function isSchemaRefusal(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'ValidationException' &&
    /schema|outputConfig|textFormat|structured output|additionalProperties/i.test(e.message ?? '')
  );
}

/** Bedrock's exceptions as {@link ModelError}s; the original goes along as `cause` (for the log only). */
export function mapBedrockError(error: unknown, signal: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal.aborted) return deadlineError(error);
  const e = error as { name?: string; message?: string } | null;
  const name = e?.name ?? '';
  const message = e?.message ?? '';
  switch (name) {
    case 'ThrottlingException':
    case 'ServiceQuotaExceededException':
      return new ModelError('throttled', 'The model service is busy; try again later.', {
        cause: error,
        retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS,
      });
    case 'ServiceUnavailableException':
    case 'InternalServerException':
    case 'ModelNotReadyException':
      return new ModelError('unavailable', 'The model service is unavailable right now; try again later.', {
        cause: error,
        retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS,
      });
    case 'ModelTimeoutException':
    case 'TimeoutError':
      return new ModelError('unavailable', 'The model service timed out; try again later.', { cause: error });
    case 'AccessDeniedException':
    case 'ResourceNotFoundException':
    case 'UnrecognizedClientException':
      return new ModelError('misconfigured', 'The model is not available to this deployment.', { cause: error });
    case 'ValidationException':
      if (/toolChoice|tool_choice|tool choice/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this tool_choice.", {
          cause: error,
          param: 'tool_choice',
        });
      }
      if (/toolSpec|inputSchema|tool schema|toolConfig/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take these tool definitions.", {
          cause: error,
          param: 'tools',
        });
      }
      if (/outputConfig|textFormat|structured output|json_schema/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this JSON Schema.", {
          cause: error,
          param: 'response_format',
        });
      }
      if (/serviceTier|service tier/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this service_tier.", {
          cause: error,
          param: 'service_tier',
        });
      }
      if (/too long|too many (input )?tokens|context (window|length)|input length|max.*tokens/i.test(message)) {
        return new ModelError('too-long', "The prompt and instructions are too long for the model's context window.", {
          cause: error,
        });
      }
      if (/model identifier|model id|doesn't support|does not support|on-demand throughput/i.test(message)) {
        return new ModelError('misconfigured', 'The model is not available to this deployment.', { cause: error });
      }
      return new ModelError('rejected', 'The model rejected the request.', { cause: error });
    case 'ModelErrorException':
      return new ModelError('failed', 'The model failed while generating the answer.', { cause: error });
    default:
      return new ModelError('failed', 'The model call failed.', { cause: error });
  }
}
