/**
 * Type tests for the product presets (checked by `npm run typecheck`, never run): what a handler receives is typed
 * by the preset, so a handler never casts its caller or its body. A line marked `@ts-expect-error` fails the check
 * the day the mistake it shows compiles.
 */
import { expectTypeOf } from 'vitest';
import { jsonObjectBody, rawBytesBody, validatedBody } from '../../http/presets.ts';
import type { HttpResult } from '../../http/types.ts';
import { createLogger } from '../../kernel/logger.ts';
import * as z from '../../kernel/validation/zod.ts';
import type { ProjectApiTokenGrant, TokenStore } from '../token-store.ts';
import { botsApiFunction, customTokenFunction } from './presets.ts';

declare const tokens: TokenStore;
declare const limiter: Parameters<typeof botsApiFunction>[0]['auth']['limiter'];
const logger = createLogger('types');
const ok: HttpResult = { statusCode: 200, body: '' };

// A Bots API handler sees the project's grant and the validated body, typed from the schema.
botsApiFunction({
  logger,
  auth: { tokens, limiter },
  body: validatedBody(z.strictObject({ botId: z.string(), topK: z.optional(z.number()) })),
}).handler(async (event) => {
  expectTypeOf(event.auth.grant).toEqualTypeOf<ProjectApiTokenGrant>();
  expectTypeOf(event.parsedBody.botId).toEqualTypeOf<string>();
  expectTypeOf(event.parsedBody.topK).toEqualTypeOf<number | undefined>();
  // @ts-expect-error: no such field in the schema
  event.parsedBody.prompt;
  return ok;
});

// Without a body reading, the handler gets no typed body.
botsApiFunction({ logger, auth: { tokens, limiter } }).handler(async (event) => {
  expectTypeOf(event.parsedBody).toEqualTypeOf<unknown>();
  return ok;
});

// A send handler sees the custom token's channel; a JSON object body is a record.
customTokenFunction({
  logger,
  tokens,
  limits: { token: limiter, tokenPerSecond: 100 },
  body: jsonObjectBody(),
}).handler(async (event) => {
  expectTypeOf(event.auth.channelId).toEqualTypeOf<string>();
  expectTypeOf(event.auth.kind).toEqualTypeOf<'custom'>();
  expectTypeOf(event.parsedBody).toEqualTypeOf<Record<string, unknown>>();
  // @ts-expect-error: a custom token carries no project API grant
  event.auth.grant;
  return ok;
});

// Raw bytes stay bytes.
customTokenFunction({
  logger,
  tokens,
  limits: { token: limiter, tokenPerSecond: 100 },
  body: rawBytesBody(1024),
}).handler(async (event) => {
  expectTypeOf(event.parsedBody).toEqualTypeOf<Buffer>();
  return ok;
});
