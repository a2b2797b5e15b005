import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parameterTableMarkdown, refusedParameter } from '#shared/models/parameters.ts';

/** The README's parameter table is the code's (the README and /openapi.json list which, per provider). */
describe('the Chat Completions parameter table', () => {
  it('the README shows exactly the table the code enforces', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(parameterTableMarkdown());
  });

  it('refuses per provider, taking neutral values everywhere', () => {
    expect(refusedParameter('bedrock', { parameters: { seed: 1 } })?.param).toBe('seed');
    expect(refusedParameter('openai', { parameters: { seed: 1, logit_bias: { '1': 2 } } })).toBeUndefined();
    expect(refusedParameter('offline', { parameters: { seed: 1, stop: ['x'] } })).toBeUndefined();
    expect(refusedParameter('offline', { parameters: { user: 'u' } })?.param).toBe('user');
    expect(refusedParameter('bedrock', { parameters: { presence_penalty: 0, logit_bias: {} } })).toBeUndefined();
    expect(refusedParameter('bedrock', { parameters: { presence_penalty: 0.5 } })?.param).toBe('presence_penalty');
    expect(refusedParameter('bedrock', { temperature: 1.5 })?.param).toBe('temperature');
    expect(refusedParameter('offline', { temperature: 0.2 })?.param).toBe('temperature');
    expect(refusedParameter('offline', { temperature: 0 })).toBeUndefined();
    expect(refusedParameter('bedrock', { parameters: { service_tier: 'flex' } })).toBeUndefined();
    expect(refusedParameter('bedrock', { parameters: { service_tier: 'scale' } })?.param).toBe('service_tier');
  });
});
