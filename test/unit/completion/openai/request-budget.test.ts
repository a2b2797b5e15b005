import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '#shared/completion/api/openai/chat-request.ts';
import { CONVERSATION_MAX_CHARS } from '#shared/completion/api/openai/request-budget.ts';
import { OpenAiRequestError } from '#shared/completion/api/openai/request-errors.ts';
import { parseResponsesRequest } from '#shared/completion/api/openai/responses-request.ts';
import { selfContainedMessageId } from '#shared/completion/api/openai/self-contained-ids.ts';
import { threadCpu } from '#test/support/thread-cpu.ts';

/**
 * One character budget per request, across every caller string that reaches the model, counted while the request is
 * read: the item references that inflate, and the side doors (answer-format descriptions, tool definitions,
 * prediction) that used to reach the model uncounted.
 */
const limits = { maxOutputTokens: 4096 };
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof OpenAiRequestError) return { param: error.param, code: error.code };
    throw error;
  }
  throw new Error('accepted');
};
const user = [{ role: 'user', content: 'hi' }];
const over = 'd'.repeat(2_000_000);

/** What a request cost: CPU milliseconds (this thread's) and heap growth (MB). */
function cost(work: () => unknown) {
  const heap = process.memoryUsage().heapUsed;
  const { cpuMs, result: outcome } = threadCpu(() => refusal(work));
  return { outcome, cpuMs, heapMb: (process.memoryUsage().heapUsed - heap) / 2 ** 20 };
}

/** A forged self-contained id: 649 characters that inflate to 480,000 bytes (the reproduction). */
const bombId = `msg_z_${deflateRawSync(Buffer.alloc(480_000, 'a'), { level: 9 }).toString('base64url')}`;

describe('item references', () => {
  it('a forged id is inflated only as far as the budget has room: 999 of them are refused at once, not decoded', () => {
    expect(bombId.length).toBeLessThan(700);
    const input = [...Array.from({ length: 999 }, () => ({ type: 'item_reference', id: bombId })), ...user];
    const { outcome, cpuMs, heapMb } = cost(() => parseResponsesRequest({ model: 'bot_1', input }, limits));
    expect(outcome).toEqual({ param: 'messages', code: 'context_length_exceeded' });
    // Inflating every id (480 MB) took seconds and crashed the service's thread at 9,500 ids.
    expect(cpuMs).toBeLessThan(300);
    expect(heapMb).toBeLessThan(20);
  });

  it('references that fit are decoded and counted: the budget is shared with the rest of the input', () => {
    const id = selfContainedMessageId('r'.repeat(50_000));
    const fits = parseResponsesRequest(
      {
        model: 'bot_1',
        input: [
          { type: 'item_reference', id },
          { role: 'user', content: 'u'.repeat(70_000) },
        ],
      },
      limits,
    );
    expect(fits.completion.turns?.[0]).toEqual({ role: 'assistant', text: 'r'.repeat(50_000) });
    expect(
      refusal(() =>
        parseResponsesRequest(
          {
            model: 'bot_1',
            input: [
              { type: 'item_reference', id },
              { role: 'user', content: 'u'.repeat(70_001) },
            ],
          },
          limits,
        ),
      ),
    ).toEqual({ param: 'messages', code: 'context_length_exceeded' });
  });

  it('input holds at most 1,000 items (9,500 references: refused before one is read)', () => {
    const input = Array.from({ length: 9_500 }, () => ({ type: 'item_reference', id: bombId }));
    const { outcome, cpuMs } = cost(() => parseResponsesRequest({ model: 'bot_1', input }, limits));
    expect(outcome).toEqual({ param: 'input', code: 'invalid_value' });
    expect(cpuMs).toBeLessThan(100);
  });
});

describe('side doors: every string that reaches the model counts', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  it.each([
    [
      'response_format.json_schema.description',
      { response_format: { type: 'json_schema', json_schema: { name: 'x', description: over, schema } } },
    ],
    ['prediction.content', { prediction: { type: 'content', content: over } }],
    ['tools[].function.description', { tools: [{ type: 'function', function: { name: 'f', description: over } }] }],
    [
      'a tool schema’s own text',
      {
        tools: [
          {
            type: 'function',
            function: { name: 'f', parameters: { type: 'object', description: 'd'.repeat(CONVERSATION_MAX_CHARS) } },
          },
        ],
      },
    ],
  ])('chat: %s of 2,000,000 characters is over the budget', (_name, fields) => {
    expect(refusal(() => parseChatRequest({ model: 'bot_1', messages: user, ...fields }, limits))).toEqual({
      param: 'messages',
      code: 'context_length_exceeded',
    });
  });

  it('responses: text.format’s description and instructions count too', () => {
    for (const fields of [
      { text: { format: { type: 'json_schema', name: 'x', description: over, schema } } },
      { instructions: over },
      { tools: [{ type: 'function', name: 'f', description: over }] },
    ])
      expect(refusal(() => parseResponsesRequest({ model: 'bot_1', input: 'hi', ...fields }, limits))).toEqual({
        param: 'messages',
        code: 'context_length_exceeded',
      });
  });

  it('a description and messages that fit together pass; one character more does not', () => {
    const format = (description: string) => ({
      model: 'bot_1',
      messages: [{ role: 'user', content: 'm'.repeat(100_000) }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', description, schema: { type: 'object' } } },
    });
    // The schema `{"type":"object"}` is 17 characters and the name 1.
    const room = CONVERSATION_MAX_CHARS - 100_000 - 17 - 1;
    expect(parseChatRequest(format('d'.repeat(room)), limits).completion.jsonSchema?.description).toHaveLength(room);
    expect(refusal(() => parseChatRequest(format('d'.repeat(room + 1)), limits))).toEqual({
      param: 'messages',
      code: 'context_length_exceeded',
    });
  });
});

describe('schema nodes: functions and answer formats together', () => {
  const tool = (i: number, nodes: number) => ({
    type: 'function',
    function: {
      name: `f${i}`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: nodes - 2 }, (_, j) => [`p${j}`, { type: 'string' }])),
      },
    },
  });

  it('at most 2,000 objects and arrays across every schema of the request', () => {
    // Seven functions of 280 nodes (1,960) pass; an answer schema of 50 more nodes is over.
    const tools = Array.from({ length: 7 }, (_, i) => tool(i, 280));
    expect(parseChatRequest({ model: 'bot_1', messages: user, tools }, limits).completion.tools).toHaveLength(7);
    const format = tool(9, 50).function.parameters;
    expect(
      refusal(() =>
        parseChatRequest(
          {
            model: 'bot_1',
            messages: user,
            tools,
            response_format: { type: 'json_schema', json_schema: { name: 'x', schema: format } },
          },
          limits,
        ),
      ),
    ).toEqual({ param: 'response_format.json_schema.schema', code: 'invalid_value' });
  });

  it('six large functions are checked without compiling them: tens of milliseconds of CPU, not most of a second', () => {
    const tools = Array.from({ length: 6 }, (_, i) => tool(i + 100, 290));
    const { cpuMs, result } = threadCpu(() => parseChatRequest({ model: 'bot_1', messages: user, tools }, limits));
    expect(result.completion.tools).toHaveLength(6);
    expect(cpuMs).toBeLessThan(200);
  });
});
