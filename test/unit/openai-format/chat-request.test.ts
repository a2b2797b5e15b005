import { describe, expect, it } from 'vitest';
import { InvalidChatRequestError, parseChatRequest } from '#shared/completion/api/openai/chat-request.ts';

/** Contract §12's request rules, one by one, with OpenAI's `param` and `code` for each refusal. */
const base = { model: 'bot_1', messages: [{ role: 'user', content: 'Hi' }] };
const refusal = (body: Record<string, unknown>) => {
  try {
    parseChatRequest(body);
  } catch (error) {
    if (error instanceof InvalidChatRequestError)
      return { param: error.param, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
};

describe('parseChatRequest', () => {
  it('takes the conversation, system and developer messages as extra instructions, and text parts', () => {
    const request = parseChatRequest({
      model: 'bot_1',
      messages: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'system', content: [{ type: 'text', text: 'Answer in Portuguese.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Refunds?' },
            { type: 'text', text: 'Quickly.' },
          ],
        },
      ],
      temperature: 0,
      max_completion_tokens: 10,
      response_format: { type: 'json_object' },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request).toEqual({
      botId: 'bot_1',
      turns: [
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Hello!' },
        { role: 'user', text: 'Refunds?\nQuickly.' },
      ],
      prompt: 'Refunds?\nQuickly.',
      extraInstructions: 'Be terse.\n\nAnswer in Portuguese.',
      responseFormat: 'json',
      temperature: 0,
      maxOutputTokens: 10,
      stream: true,
      includeUsage: true,
    });
  });

  it('accepts and ignores what changes nothing here, and null for optional fields', () => {
    const request = parseChatRequest({
      ...base,
      user: 'u1',
      store: true,
      metadata: { a: '1' },
      seed: 3,
      top_p: 0.5,
      logprobs: false,
      tool_choice: 'none',
      tools: [],
      n: 1,
      temperature: null,
      max_tokens: null,
      stream: null,
      stream_options: null,
    });
    expect(request).toMatchObject({ botId: 'bot_1', stream: false, includeUsage: false, responseFormat: 'text' });
    expect(request.temperature).toBeUndefined();
    expect(request.maxOutputTokens).toBeUndefined();
  });

  it.each([
    [{ tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools', 'unsupported_parameter'],
    [{ functions: [{ name: 'f' }] }, 'functions', 'unsupported_parameter'],
    [{ n: 3 }, 'n', 'unsupported_parameter'],
    [{ audio: { voice: 'alloy', format: 'mp3' } }, 'audio', 'unsupported_parameter'],
    [{ modalities: ['text', 'audio'] }, 'modalities', 'unsupported_parameter'],
    [
      { response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      'response_format',
      'unsupported_parameter',
    ],
    [{ response_format: { type: 'yaml' } }, 'response_format.type', 'invalid_value'],
    [{ temperature: -0.1 }, 'temperature', 'invalid_value'],
    [{ temperature: 2.01 }, 'temperature', 'invalid_value'],
    [{ max_tokens: 0 }, 'max_tokens', 'invalid_value'],
    [{ max_completion_tokens: 1.5 }, 'max_completion_tokens', 'invalid_value'],
    [{ model: undefined }, 'model', 'missing_required_parameter'],
    [{ messages: [] }, 'messages', 'invalid_value'],
    [{ messages: [{ role: 'assistant', content: 'Hello' }] }, 'messages', 'missing_required_parameter'],
    [{ messages: [{ role: 'user', content: '   ' }] }, 'messages', 'missing_required_parameter'],
    [{ messages: [{ role: 'tool', content: 'x', tool_call_id: 't' }] }, 'messages[0].role', 'unsupported_parameter'],
    [
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }] },
      'messages[0].content[0]',
      'unsupported_parameter',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }] },
      'messages[0].content[0]',
      'unsupported_parameter',
    ],
    [{ messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role', 'invalid_value'],
  ])('%j → 400 %s %s', (fields, param, code) => {
    expect(refusal({ ...base, ...fields })).toMatchObject({ param, code });
  });
});
