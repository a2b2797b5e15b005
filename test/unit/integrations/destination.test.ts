import { describe, expect, it } from 'vitest';
import { arnProblem, bucketNameProblem, destinationProblems, parseQueueUrl } from '#shared/integrations/destination.ts';

describe('destination syntax', () => {
  it("takes each service's ARNs and refuses another service's, a missing account or region, a bad resource", () => {
    expect(arnProblem('arn:aws:iam::123456789012:role/delivery', 'iam')).toBeUndefined();
    expect(arnProblem('arn:aws:iam::123456789012:role/path/to/delivery', 'iam')).toBeUndefined();
    expect(arnProblem('arn:aws:sns:eu-west-1:123456789012:orders.fifo', 'sns')).toBeUndefined();
    expect(arnProblem('arn:aws:events:us-east-1:123456789012:event-bus/default', 'events')).toBeUndefined();
    expect(arnProblem('arn:aws:kinesis:us-east-1:123456789012:stream/s-1', 'kinesis')).toBeUndefined();
    for (const [arn, service] of [
      ['arn:aws:iam::12345:role/x', 'iam'],
      ['arn:aws:iam:us-east-1:123456789012:role/x', 'iam'],
      ['arn:aws:iam::123456789012:user/x', 'iam'],
      ['arn:aws:sqs:us-east-1:123456789012:q', 'sns'],
      ['arn:aws:sns::123456789012:t', 'sns'],
      ['arn:aws:events:us-east-1:123456789012:rule/x', 'events'],
      ['arn:aws:kinesis:us-east-1:123456789012:stream/', 'kinesis'],
      ['not-an-arn', 'kinesis'],
    ] as const) {
      expect(arnProblem(arn, service), arn).toBeDefined();
    }
  });

  it("reads SQS's queue URLs, and the stand-in's only where private destinations are allowed", () => {
    expect(parseQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/q.fifo', false)).toEqual({
      region: 'eu-west-1',
      account: '123456789012',
      name: 'q.fifo',
      fifo: true,
    });
    expect(parseQueueUrl('https://us-east-2.queue.amazonaws.com/123456789012/q', false)?.region).toBe('us-east-2');
    for (const url of [
      'https://example.com/123456789012/q',
      'http://sqs.us-east-1.amazonaws.com/123456789012/q',
      'https://sqs.us-east-1.amazonaws.com:8443/123456789012/q',
      'https://sqs.us-east-1.amazonaws.com/123/q',
      'https://sqs.us-east-1.amazonaws.com/123456789012/q?x=1',
      'https://sqs.us-east-1.amazonaws.com.evil.com/123456789012/q',
    ]) {
      expect(parseQueueUrl(url, true), url).toBeUndefined();
    }
    const local = 'http://sqs.us-east-1.127.0.0.1:4566/000000000000/q';
    expect(parseQueueUrl(local, false)).toBeUndefined();
    expect(parseQueueUrl(local, true)?.name).toBe('q');
  });

  it("follows S3's bucket naming rules", () => {
    for (const ok of ['abc', 'my.bucket-1', 'a'.repeat(63)]) expect(bucketNameProblem(ok), ok).toBeUndefined();
    for (const bad of ['ab', 'Bad_Bucket', 'a'.repeat(64), 'a..b', '192.168.1.1', 'xn--abc', 'abc-s3alias', '-abc'])
      expect(bucketNameProblem(bad), bad).toBeDefined();
  });

  it('names every problem by its field', () => {
    expect(destinationProblems({ type: 'sqs', roleArn: 'x', queueUrl: 'y' }, false).map((p) => p.path)).toEqual([
      'roleArn',
      'queueUrl',
    ]);
    expect(destinationProblems({ type: 'http' }, false)).toEqual([]);
  });
});
