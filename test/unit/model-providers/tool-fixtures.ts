import type { ConversationTurn, ModelRequest, ModelStreamEvent } from '#shared/models/index.ts';

/** Tools, a conversation with tool results and a request, shared by the tool-call tests of each adapter. */

export const weather = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};
export const time = { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
export const history: ConversationTurn[] = [
  { role: 'user', text: 'Weather and time in Lisbon?' },
  {
    role: 'assistant',
    text: '',
    toolCalls: [
      { id: 'call_a', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
      { id: 'call_b', name: 'get_time', arguments: '{"city":"Lisbon"}' },
    ],
  },
  { role: 'tool', toolCallId: 'call_a', text: '22 °C' },
  { role: 'tool', toolCallId: 'call_b', text: '12:00' },
];
export const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are the travel agent.',
  prompt: 'Weather and time in Lisbon?',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});
export async function collect(events: AsyncIterable<ModelStreamEvent>) {
  const out: ModelStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}
