import { describe, expect, it } from 'vitest';
import { formatModelSpec, parseModelSpec } from '#shared/models/model-spec.ts';

describe('model specs (a bot’s `model` field)', () => {
  it.each([
    ['offline', { provider: 'offline' }],
    ['openai', { provider: 'openai' }],
    ['openai:gpt-4o-mini', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['openai:llama3.1:8b', { provider: 'openai', model: 'llama3.1:8b' }],
    ['bedrock', { provider: 'bedrock' }],
    ['bedrock:amazon.nova-lite-v1:0', { provider: 'bedrock', model: 'amazon.nova-lite-v1:0' }],
    [
      'Bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0',
      { provider: 'bedrock', model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0' },
    ],
    [
      'bedrock:arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0',
      {
        provider: 'bedrock',
        model: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0',
      },
    ],
  ])('%s', (text, spec) => {
    const parsed = parseModelSpec(text);
    expect(parsed).toEqual({ ok: true, spec });
    if (parsed.ok) expect(parseModelSpec(formatModelSpec(parsed.spec))).toEqual(parsed);
  });

  it.each([
    '',
    '   ',
    'gpt-4o',
    'anthropic:claude',
    'offline:tiny',
    'openai:',
    'openai: gpt',
    'openai:gpt 4',
    'x'.repeat(301),
  ])('rejects %j', (text) => {
    const parsed = parseModelSpec(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(10);
  });
});
