import { describe, expect, it } from 'vitest';
import { InvalidEventPatternError, matchesEventPattern, parseEventPattern } from '#local/aws/event-pattern.ts';

/** EventBridge's event patterns as AWS documents them (the examples of its "Content filtering" page, in spirit). */
const event = {
  version: '0',
  id: 'e1',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: '2026-12-01T00:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-1'],
  detail: {
    state: 'running',
    'instance-id': 'i-1',
    c_count: 5,
    d_count: null,
    tags: ['blue', 'green'],
    location: { city: 'Lisbon', zone: 'eu-west-1a' },
  },
};
const matches = (pattern: unknown) => matchesEventPattern(parseEventPattern(JSON.stringify(pattern)), event);

describe('EventBridge event patterns', () => {
  it('matches exact values, any of a list, arrays in the event, nested fields and null', () => {
    expect(matches({ source: ['aws.ec2'] })).toBe(true);
    expect(matches({ source: ['aws.s3', 'aws.ec2'] })).toBe(true);
    expect(matches({ source: ['aws.s3'] })).toBe(false);
    expect(matches({ detail: { tags: ['green'] } })).toBe(true);
    expect(matches({ detail: { location: { city: ['Lisbon'] } } })).toBe(true);
    expect(matches({ detail: { location: { city: ['Porto'] } } })).toBe(false);
    expect(matches({ detail: { c_count: [5] } })).toBe(true);
    expect(matches({ detail: { c_count: ['5'] } })).toBe(false);
    expect(matches({ detail: { d_count: [null] } })).toBe(true);
    expect(matches({ detail: { missing: [null] } })).toBe(false);
    expect(matches({ source: ['aws.ec2'], detail: { state: ['stopped'] } })).toBe(false);
  });

  it('matches prefix, suffix, equals-ignore-case, wildcard, anything-but, numeric and exists', () => {
    expect(matches({ detail: { state: [{ prefix: 'run' }] } })).toBe(true);
    expect(matches({ detail: { state: [{ prefix: { 'equals-ignore-case': 'RUN' } }] } })).toBe(true);
    expect(matches({ detail: { state: [{ suffix: 'ing' }] } })).toBe(true);
    expect(matches({ detail: { state: [{ 'equals-ignore-case': 'RUNNING' }] } })).toBe(true);
    expect(matches({ detail: { location: { zone: [{ wildcard: 'eu-*-1a' }] } } })).toBe(true);
    expect(matches({ detail: { location: { zone: [{ wildcard: 'us-*' }] } } })).toBe(false);
    expect(matches({ detail: { location: { zone: [{ wildcard: '*1a' }] } } })).toBe(true);
    expect(matches({ detail: { location: { zone: [{ wildcard: 'eu-west-1a*' }] } } })).toBe(true);
    expect(matches({ detail: { location: { zone: [{ wildcard: 'eu.*' }] } } })).toBe(false);
    expect(matches({ detail: { state: [{ 'anything-but': 'stopped' }] } })).toBe(true);
    expect(matches({ detail: { state: [{ 'anything-but': ['running', 'stopped'] }] } })).toBe(false);
    expect(matches({ detail: { state: [{ 'anything-but': { prefix: 'run' } }] } })).toBe(false);
    expect(matches({ detail: { missing: [{ 'anything-but': 'x' }] } })).toBe(false);
    expect(matches({ detail: { c_count: [{ numeric: ['>', 0, '<=', 5] }] } })).toBe(true);
    expect(matches({ detail: { c_count: [{ numeric: ['<', 5] }] } })).toBe(false);
    expect(matches({ detail: { state: [{ exists: true }] } })).toBe(true);
    expect(matches({ detail: { missing: [{ exists: true }] } })).toBe(false);
    expect(matches({ detail: { missing: [{ exists: false }] } })).toBe(true);
    expect(matches({ detail: { state: [{ exists: false }] } })).toBe(false);
  });

  it('matches a hostile wildcard in time linear-ish in its size, where a regular expression would not end', () => {
    const long = { ...event, detail: { ...event.detail, state: 'a'.repeat(5000) } };
    const pattern = parseEventPattern(JSON.stringify({ detail: { state: [{ wildcard: `${'a*'.repeat(40)}b` }] } }));
    const started = performance.now();
    expect(matchesEventPattern(pattern, long)).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('matches $or at any level', () => {
    expect(matches({ $or: [{ source: ['aws.s3'] }, { detail: { state: ['running'] } }] })).toBe(true);
    expect(matches({ detail: { $or: [{ state: ['stopped'] }, { c_count: [{ numeric: ['>', 9] }] }] } })).toBe(false);
  });

  it('refuses what AWS refuses: values that are not lists, empty lists, unknown or malformed conditions', () => {
    for (const bad of [
      'not json',
      '[]',
      '{}',
      '{"source":"aws.ec2"}',
      '{"source":[]}',
      '{"source":[{"bogus":1}]}',
      '{"detail":{"n":[{"numeric":[">","5"]}]}}',
      '{"detail":{"n":[{"numeric":["~",5]}]}}',
      '{"source":[{"prefix":5}]}',
      '{"source":[{"cidr":"10.0.0.0/24"}]}',
      '{"$or":[{"source":["a"]}]}',
    ])
      expect(() => parseEventPattern(bad), bad).toThrow(InvalidEventPatternError);
  });
});
