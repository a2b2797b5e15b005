import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { applied, conditionalWrite } from '#shared/kernel/aws/dynamo-table.ts';

const conditionFailed = (item?: Record<string, unknown>) =>
  Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), {
    Item: item,
  });

describe('conditionalWrite', () => {
  it("gives the command's output when the write applied", async () => {
    expect(await conditionalWrite(Promise.resolve({ Attributes: { tat: 5 } }))).toEqual({
      applied: true,
      output: { Attributes: { tat: 5 } },
    });
    expect(await applied(Promise.resolve({}))).toBe(true);
  });

  it('answers a failed condition, with the item as it was when DynamoDB returned it', async () => {
    expect(await conditionalWrite(Promise.reject(conditionFailed({ tat: { N: '42' } })))).toEqual({
      applied: false,
      itemBefore: { tat: { N: '42' } },
    });
    expect(await conditionalWrite(Promise.reject(conditionFailed()))).toEqual({
      applied: false,
      itemBefore: undefined,
    });
    // dynalite's error is a plain error with the exception's name.
    const byName = Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' });
    expect(await applied(Promise.reject(byName))).toBe(false);
  });

  it('lets every other error through', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    await expect(conditionalWrite(Promise.reject(throttled))).rejects.toBe(throttled);
    await expect(applied(Promise.reject(throttled))).rejects.toBe(throttled);
  });
});
