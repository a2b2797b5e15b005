import { expect, test } from 'vitest';
import type { Qrels } from '../../../bench/lib/retrieval/collections.ts';
import { evaluate, mapAt, mrrAt, ndcgAt, pairedRandomisation, recallAt } from '../../../bench/lib/retrieval/metrics.ts';

/** bench/retrieval.ts's evaluator against values computed by hand from trec_eval's definitions. */
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-9);

test('binary judgements: hand-computed trec_eval values', () => {
  const qrels: Qrels = new Map([
    [
      'q',
      new Map([
        ['a', 1],
        ['c', 1],
        ['z', 0],
      ]),
    ],
  ]);
  const run = new Map([['q', ['a', 'b', 'c', 'z']]]);
  const e = evaluate(run, qrels, [ndcgAt(10), mapAt(100), recallAt(1), recallAt(3), mrrAt(10)]);
  close(e.mean['ndcg@10']!, (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)));
  close(e.mean['map@100']!, (1 / 1 + 2 / 3) / 2);
  close(e.mean['recall@1']!, 0.5);
  close(e.mean['recall@3']!, 1);
  close(e.mean['mrr@10']!, 1);
});

test('graded judgements use linear gain; ideal list from the qrels, cut at k', () => {
  const qrels: Qrels = new Map([
    [
      'q',
      new Map([
        ['a', 1],
        ['b', 3],
        ['c', 2],
      ]),
    ],
  ]);
  const run = new Map([['q', ['a', 'x', 'b']]]);
  const e = evaluate(run, qrels, [ndcgAt(2), ndcgAt(10)]);
  close(e.mean['ndcg@2']!, 1 / (3 + 2 / Math.log2(3)));
  close(e.mean['ndcg@10']!, (1 + 3 / 2) / (3 + 2 / Math.log2(3) + 1 / 2));
});

test('duplicates count once; missing queries score 0; queries without relevant documents are skipped', () => {
  const qrels: Qrels = new Map([
    [
      'q1',
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
    ],
    ['q2', new Map([['a', 1]])],
    ['q3', new Map([['a', 0]])],
  ]);
  const run = new Map([['q1', ['x', 'x', 'a']]]);
  const e = evaluate(run, qrels, [mapAt(100), recallAt(2)]);
  expect(e.queries).toBe(2);
  close(e.mean['map@100']!, (1 / 2 / 2 + 0) / 2);
  close(e.mean['recall@2']!, (1 / 2 + 0) / 2);
});

test('the paired randomisation test: identical runs are not different, a consistent gain is', () => {
  const a = new Map(Array.from({ length: 40 }, (_, i) => [`q${i}`, { m: 0.5 }]));
  const same = pairedRandomisation(a, a, 'm', 2000);
  expect(same.diff).toBe(0);
  expect(same.p).toBeGreaterThan(0.9);
  const better = new Map([...a].map(([q, r]) => [q, { m: r.m + 0.1 }]));
  const gain = pairedRandomisation(a, better, 'm', 2000);
  close(gain.diff, 0.1);
  expect(gain.p).toBeLessThan(0.01);
});
