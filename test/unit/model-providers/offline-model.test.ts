import { describe, expect, it } from 'vitest';
import { OFFLINE_LABEL, OfflineModelProvider } from '#shared/model-providers/adapters/offline-model.ts';
import type { ModelRequest } from '#shared/models/index.ts';

const offline = new OfflineModelProvider();
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Be brief.',
  prompt: 'What are the opening hours? Also, do you ship abroad?\nThanks.',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});

describe('OfflineModelProvider', () => {
  it('answers from the best knowledge excerpt, naming its file, labelled as offline', async () => {
    const reply = await offline.generate(
      request({
        excerpts: [
          { text: 'Returns within 30 days.', fileName: 'returns.pdf', score: 0.4 },
          { text: 'We open   at 9\nand close at 18.', fileName: 'hours.md', score: 0.8 },
        ],
      }),
    );
    expect(reply.text.startsWith(OFFLINE_LABEL)).toBe(true);
    expect(reply.text).toContain('"hours.md"');
    expect(reply.text).toContain('We open at 9 and close at 18.');
    expect(reply.text).not.toContain('Returns');
    expect(reply.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
  });

  it('without knowledge, echoes an outline of the prompt', async () => {
    const reply = await offline.generate(request());
    expect(reply.text).toBe(
      `${OFFLINE_LABEL} No language model is connected. Your prompt (11 words) in outline:\n- What are the opening hours?\n- Also, do you ship abroad?\n- Thanks.`,
    );
  });

  it('answers JSON that parses when JSON is asked for', async () => {
    const withKnowledge = await offline.generate(
      request({ responseFormat: 'json', excerpts: [{ text: 'Open at 9.', fileName: 'h.md', score: 1 }] }),
    );
    expect(JSON.parse(withKnowledge.text)).toEqual({ offline: true, answer: 'Open at 9.', source: 'h.md' });
    const outline = await offline.generate(request({ responseFormat: 'json', prompt: 'Hi' }));
    expect(JSON.parse(outline.text)).toEqual({ offline: true, outline: ['Hi'], words: 1 });
  });

  it('is deterministic', async () => {
    const a = await offline.generate(request({ prompt: 'x '.repeat(500) }));
    const b = await offline.generate(request({ prompt: 'x '.repeat(500) }));
    expect(a).toEqual(b);
  });

  it('respects an aborted signal', async () => {
    await expect(offline.generate(request({ signal: AbortSignal.abort() }))).rejects.toMatchObject({ kind: 'timeout' });
  });
});
