import { IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../../contract/api-docs.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { messageStatus } from './schemas.ts';

const refusal = withMeta(
  z.object({
    code: z.string(),
    message: z.string(),
    details: z.optional(z.array(z.object({ path: z.string(), message: z.string(), code: z.string() }))),
  }),
  { id: 'BatchItemRefusal', description: 'The error a single send of this item would have answered.' },
);

export const scheduledResult = withMeta(
  z.object({
    success: z.literal(true),
    messageId: z.string(),
    status: z.literal('scheduled'),
    sendAt: withMeta(z.string(), { description: 'When it leaves (UTC).' }),
  }),
  { id: 'ScheduledResult' },
);

export const batchAccepted = withMeta(
  z.object({
    success: z.literal(true),
    batchId: z.string(),
    items: z.array(
      z.object({
        index: z.number(),
        messageId: z.optional(z.string()),
        status: z.enum(['queued', 'scheduled', 'refused']),
        error: z.optional(refusal),
      }),
    ),
  }),
  { id: 'BatchAccepted' },
);

export const batchProgress = withMeta(
  z.object({
    batchId: z.string(),
    total: z.number(),
    createdAt: z.string(),
    counts: z.object({
      queued: z.number(),
      sent: z.number(),
      failed: z.number(),
      scheduled: z.number(),
      canceled: z.number(),
      refused: z.number(),
    }),
  }),
  { id: 'BatchProgress' },
);

const custom = { tags: ['Messages'] as ['Messages'], security: 'customToken' as const };

/** The public routes of sends at volume: batches, their progress, and cancelling or moving a scheduled message. */
export function volumeOperationDocs(): PublicOperationDocs {
  return {
    'POST /api/integration/generic/batch': {
      ...custom,
      operationId: 'sendBatch',
      summary: 'Send up to 1,000 messages at once',
      description:
        "`{ messages: [<send body>, …] }`, 1 to 1,000 bodies of the token's channel type, each may carry `sendAt`. " +
        'Answers at once, one result per item in order: `queued` (sent in the background at the channel’s ' +
        '`pace`, charged when it leaves, with its own events), `scheduled`, or `refused` with the code a single ' +
        'send would answer (`VALIDATION_ERROR`, `RECIPIENT_OPTED_OUT`, `WINDOW_CLOSED`): a refused item never ' +
        'fails the batch and charges nothing. 400 only for the envelope. `Idempotency-Key` covers the whole batch.',
      idempotent: true,
      requestBodies: [
        {
          contentType: 'application/json',
          description: 'The send bodies.',
          schema: withMeta(z.strictObject({ messages: z.array(z.record(z.string(), z.unknown())) }), {
            id: 'BatchRequest',
          }),
          source: 'handler',
        },
      ],
      responses: { 202: { description: 'Accepted, item by item.', body: batchAccepted } },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        ...JSON_BODY_ERRORS,
        404: ['CHANNEL_NOT_FOUND'],
        409: [...(IDEMPOTENCY_ERRORS[409] ?? [])],
        429: ['RATE_LIMITED'],
      },
    },
    'GET /api/integration/batches/{batchId}': {
      ...custom,
      operationId: 'getBatch',
      summary: "A batch's progress",
      description:
        "Its items counted as their messages are now: `queued` (waiting for the channel's pace), `sent` (left: " +
        'delivered and read ones too), `failed`, `scheduled`, `canceled`, and `refused` at acceptance. Another ' +
        "channel's batch answers 404.",
      responses: { 200: { description: 'The counts.', body: batchProgress } },
      errors: { 401: ['ERR_NO_PERMISSION'], 404: ['NOT_FOUND'], 429: ['RATE_LIMITED'] },
    },
    'DELETE /api/integration/messages/{messageId}': {
      ...custom,
      operationId: 'deleteScheduledMessage',
      summary: 'Cancel a scheduled message',
      description:
        'A message sent with `sendAt` that has not left: 204, it is never sent (status `canceled`), nothing ' +
        'charged. Any other message (sent, failed, already canceled, sent without `sendAt`): 409 `NOT_SCHEDULED`.',
      responses: { 204: { description: 'Canceled.' } },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        404: ['MESSAGE_NOT_FOUND'],
        409: ['NOT_SCHEDULED'],
        429: ['RATE_LIMITED'],
      },
    },
    'PATCH /api/integration/messages/{messageId}': {
      ...custom,
      operationId: 'updateScheduledMessage',
      summary: 'Move a scheduled message',
      description:
        '`{ "sendAt" }` (RFC 3339 with offset, 60 s to 35 days from now): the message leaves then instead. Answers ' +
        'the message as `GET` shows it. A message not scheduled: 409 `NOT_SCHEDULED`.',
      requestBodies: [
        {
          contentType: 'application/json',
          description: 'The new time.',
          schema: withMeta(z.strictObject({ sendAt: z.string() }), { id: 'RescheduleRequest' }),
          source: 'handler',
        },
      ],
      responses: { 200: { description: 'Moved.', body: messageStatus } },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        ...JSON_BODY_ERRORS,
        404: ['MESSAGE_NOT_FOUND'],
        409: ['NOT_SCHEDULED'],
        429: ['RATE_LIMITED'],
      },
    },
  };
}
