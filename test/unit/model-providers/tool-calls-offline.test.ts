import { describe, expect, it } from 'vitest';
import { OfflineModelProvider } from '#shared/model-providers/adapters/offline-model.ts';
import { sampleFromSchema, seedWord } from '#shared/model-providers/adapters/schema-sample.ts';
import { compileJsonSchema } from '#shared/kernel/validation/json-schema.ts';
import { weather, time, history, request, collect } from './tool-fixtures.ts';

/** The offline model with tools and structured output, and the schema samples its arguments are made from. */
describe('the offline model with tools', () => {
  const offline = new OfflineModelProvider();

  it('calls the first (or the named) function with arguments valid against its schema, deterministically', async () => {
    const a = await offline.generate(request({ tools: [weather, time] }));
    const b = await offline.generate(request({ tools: [weather, time] }));
    expect(a).toEqual(b);
    expect(a.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"Lisbon"}' },
    ]);
    expect(a.stopReason).toBe('tool_calls');
    const named = await offline.generate(request({ tools: [weather, time], toolChoice: { name: 'get_time' } }));
    expect(named.toolCalls?.[0]?.name).toBe('get_time');
    expect((await offline.generate(request({ tools: [weather], toolChoice: 'none' }))).toolCalls).toBeUndefined();
  });

  it('after the results, answers with text that quotes them; streamed calls come as start + argument pieces', async () => {
    const after = await offline.generate(request({ turns: history, tools: [weather, time] }));
    expect(after.toolCalls).toBeUndefined();
    expect(after.text).toContain('get_weather: 22 °C');
    expect(after.text).toContain('get_time: 12:00');
    const events = await collect(offline.stream(request({ tools: [weather] })));
    expect(events.map((e) => e.type)).toEqual(['tool-call', 'tool-arguments', 'tool-arguments', 'end']);
  });

  it('honours stop, max tokens and JSON Schema answers', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 18 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
      },
      required: ['name', 'age', 'tags'],
      additionalProperties: false,
    };
    const json = await offline.generate(request({ responseFormat: 'json', jsonSchema: { name: 'p', schema } }));
    const compiled = compileJsonSchema(schema);
    expect(compiled.ok && compiled.schema.validate(JSON.parse(json.text))).toBeUndefined();
    const cut = await offline.generate(request({ parameters: { stop: ['outline'] } }));
    expect(cut.text.endsWith('in ')).toBe(true);
    const short = await offline.generate(request({ maxOutputTokens: 3 }));
    expect(short).toMatchObject({ stopReason: 'length' });
    expect(short.text.length).toBeLessThanOrEqual(12);
  });
});

describe('schema samples', () => {
  it.each([
    [{ type: 'string', format: 'email' }],
    [{ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }],
    [{ type: 'number', exclusiveMinimum: 5, multipleOf: 2 }],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }],
    [{ type: ['string', 'null'], minLength: 20 }],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/x' } }, required: ['a'], $defs: { x: { enum: ['p', 'q'] } } }],
    [{ allOf: [{ type: 'object', properties: { a: { type: 'boolean' } } }, { required: ['a', 'b'] }] }],
    [{ type: 'array', items: { type: 'object', properties: { n: { const: 3 } } }, minItems: 3, maxItems: 3 }],
  ])('%j is satisfied', (schema) => {
    const compiled = compileJsonSchema(schema);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.schema.validate(sampleFromSchema(schema, 'Weather in Lisbon'))).toBeUndefined();
  });

  it('takes a name from the prompt for strings', () => {
    expect(seedWord('What is the weather in Lisbon today?')).toBe('Lisbon');
    expect(seedWord('weather please')).toBe('weather');
  });
});
