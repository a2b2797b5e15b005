import type { ChargeOutcome, ChargeReceipt, CreditAccount, CreditLedger } from '../credit-ledger.ts';
import type { CreditUsage, CreditUsageReader } from '../credit-usage.ts';
import { dayOfMonthFor, monthKey } from '../month.ts';
import { applied, type DynamoTable, queryPage, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { forEachConcurrently } from '../../kernel/shards.ts';
import { backgroundIndex, creditsKeyParts, keys, workIndex } from '../../contract/keys.ts';

/** Prefix of the attributes that record open charges on a month item: `c_<chargeId>` = epoch ms of the charge. */
const CHARGE_ATTR = 'c_';
/** Per-day counters on the month item: `dc_<DD>` credits charged and `dr_<DD>` refunded on that UTC day. */
const DAY_CHARGED_ATTR = 'dc_';
const DAY_REFUNDED_ATTR = 'dr_';
const day2 = (day: number) => String(day).padStart(2, '0');
/** The sweep: shards read at once, entries per page, items swept at once per shard, charges refunded per write. */
const SHARDS_AT_ONCE = 8;
const PAGE = 100;
const ITEMS_AT_ONCE = 10;
const REFUNDS_PER_WRITE = 50;

/**
 * One item per project and UTC month holds the balance (`available`), its history (`allowance`, `granted`, `spent`,
 * `refunded`) and one attribute per open charge. Every operation is a single-item conditional write: charging
 * checks the balance and records the charge atomically, refund and settle remove the charge record, so each can
 * happen once. (No transactions: dynalite has none, and one item is half the cost of a two-item transaction.)
 *
 * The sweeper finds month items with open charges through the keys-only work index: the item joins its project's
 * shard (`CREDIT_SWEEP#NN`, sort key = time of the oldest charge that may still be open) on its first charge, and
 * the sweeper moves it along or takes it out when none is left. Later charges leave the index's keys as they are, so
 * they write nothing there: the hot path's one write is the item's own.
 *
 * Why one item per project and month, not shards or leased blocks: a project's charges are bounded by its API
 * token's rate limit (BOT_RATE_LIMIT_PER_MINUTE, 1 a second by default), two writes each (charge, then settle or
 * refund), of 1 KB plus ~40 bytes per charge still open. At 10 charges a second with answers of 30 s (300 open:
 * ~13 KB) that is 20 writes of 13 units, 260 of the partition's 1,000 (docs/decisions.md, "Credits and rate
 * limits").
 */
export class DynamoCreditLedger implements CreditLedger, CreditUsageReader {
  constructor(private readonly table: DynamoTable) {}

  async available(account: CreditAccount, at: Date): Promise<number> {
    const item = await readItem(this.table, keys.credits(account.projectId, monthKey(at)), {
      ProjectionExpression: 'available',
    });
    const available = item?.available as number | undefined;
    return available ?? account.monthlyAllowance;
  }

  async grant(account: CreditAccount, amount: number, at: Date): Promise<number> {
    const out = await updateItem(this.table, {
      Key: keys.credits(account.projectId, monthKey(at)),
      UpdateExpression:
        'SET available = if_not_exists(available, :allow) + :amount, granted = if_not_exists(granted, :zero) + :amount, allowance = if_not_exists(allowance, :allow)',
      ExpressionAttributeValues: { ':allow': account.monthlyAllowance, ':amount': amount, ':zero': 0 },
      ReturnValues: 'UPDATED_NEW',
    });
    return out.Attributes?.available as number;
  }

  async charge(account: CreditAccount, chargeId: string, at: Date): Promise<ChargeOutcome> {
    const month = monthKey(at);
    const receipt: ChargeReceipt = { projectId: account.projectId, month, chargeId };
    const key = keys.credits(account.projectId, month);
    // A month item that does not exist yet starts from the allowance, so it can be charged only if the allowance can.
    const balanceCondition =
      account.monthlyAllowance >= 1 ? '(attribute_not_exists(available) OR available >= :one)' : 'available >= :one';
    const charged = await applied(
      updateItem(this.table, {
        Key: key,
        UpdateExpression:
          'SET available = if_not_exists(available, :allow) - :one, spent = if_not_exists(spent, :zero) + :one, ' +
          'allowance = if_not_exists(allowance, :allow), #charge = :at, seq = if_not_exists(seq, :zero) + :one, ' +
          '#sweepPk = if_not_exists(#sweepPk, :sweepPk), #sweepSk = if_not_exists(#sweepSk, :sweepSk) ADD #day :one',
        ConditionExpression: `attribute_not_exists(#charge) AND ${balanceCondition}`,
        ExpressionAttributeNames: {
          '#charge': CHARGE_ATTR + chargeId,
          // The day's counter rides on the same write: the hot path keeps one charge write.
          '#day': DAY_CHARGED_ATTR + day2(at.getUTCDate()),
          '#sweepPk': workIndex.partitionKey,
          '#sweepSk': workIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':allow': account.monthlyAllowance,
          ':one': 1,
          ':zero': 0,
          ':at': at.getTime(),
          ':sweepPk': workIndex.creditSweepPartitionOf(account.projectId),
          ':sweepSk': workIndex.creditSweepSortKey(at.getTime()),
        },
      }),
    );
    if (charged) return { charged: true, receipt };
    // The condition failed: either the balance is short, or this very charge already went through (an SDK retry of
    // a write whose answer was lost). Only this rare path pays for a read.
    const item = await readItem(this.table, key, {
      ProjectionExpression: '#charge',
      ExpressionAttributeNames: { '#charge': CHARGE_ATTR + chargeId },
    });
    if (item && item[CHARGE_ATTR + chargeId] !== undefined) return { charged: true, receipt };
    return { charged: false, reason: 'insufficient' };
  }

  async refund(receipt: ChargeReceipt): Promise<boolean> {
    return this.close(
      receipt,
      'SET available = available + :one, refunded = if_not_exists(refunded, :zero) + :one ADD #day :one REMOVE #charge',
      {
        ':one': 1,
        ':zero': 0,
      },
      { '#day': DAY_REFUNDED_ATTR + day2(dayOfMonthFor(receipt.month, new Date())) },
    );
  }

  async usage(account: CreditAccount, at: Date): Promise<CreditUsage> {
    const item = (await readItem(this.table, keys.credits(account.projectId, monthKey(at)))) ?? {};
    const count = (name: string) => (typeof item[name] === 'number' ? (item[name] as number) : 0);
    const days = [];
    for (let day = 1; day <= at.getUTCDate(); day++)
      days.push({ day, charged: count(DAY_CHARGED_ATTR + day2(day)), refunded: count(DAY_REFUNDED_ATTR + day2(day)) });
    return {
      allowance: (item.allowance as number | undefined) ?? account.monthlyAllowance,
      granted: count('granted'),
      available: (item.available as number | undefined) ?? account.monthlyAllowance,
      days,
    };
  }

  async settle(receipt: ChargeReceipt): Promise<boolean> {
    return this.close(receipt, 'REMOVE #charge');
  }

  private async close(
    receipt: ChargeReceipt,
    updateExpression: string,
    values?: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.credits(receipt.projectId, receipt.month),
        UpdateExpression: updateExpression,
        ConditionExpression: 'attribute_exists(#charge)',
        ExpressionAttributeNames: { '#charge': CHARGE_ATTR + receipt.chargeId, ...names },
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }

  /**
   * Reads every shard of the sweep (and the previous layout's one key, until it is empty) in parallel, page after
   * page, until nothing older than the cutoff is left or `budgetMs` has passed: the rest waits for the next run.
   */
  async sweep(openBefore: Date, budgetMs = 50_000): Promise<number> {
    const startedAt = Date.now();
    const cutoff = openBefore.getTime();
    let refunded = 0;
    const shards = [
      ...workIndex.creditSweepPartitions.map((pk) => ({ index: workIndex, pk })),
      { index: backgroundIndex, pk: backgroundIndex.legacyCreditSweepPartition },
    ];
    await forEachConcurrently(shards, SHARDS_AT_ONCE, async ({ index, pk }) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        if (Date.now() - startedAt >= budgetMs) return;
        const page = await queryPage(this.table, {
          IndexName: index.indexName,
          KeyConditionExpression: '#pk = :pk AND #sk <= :cutoff',
          ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
          ExpressionAttributeValues: { ':pk': pk, ':cutoff': workIndex.creditSweepSortKey(cutoff) },
          Limit: PAGE,
          ExclusiveStartKey: startKey,
        });
        await forEachConcurrently(page.Items ?? [], ITEMS_AT_ONCE, async (entry) => {
          // Read, then added: `refunded += await …` would add to the total as it was before the wait.
          const swept = await this.sweepItem({ pk: entry.pk as string, sk: entry.sk as string }, cutoff);
          refunded += swept;
        });
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    });
    return refunded;
  }

  /**
   * Refunds the item's charges older than the cutoff (all in one write when none was closed meanwhile), then moves its
   * sweep entry to the oldest charge left, or takes it out; an item of the previous layout moves to its shard.
   */
  private async sweepItem(key: { pk: string; sk: string }, cutoff: number): Promise<number> {
    const item = await readItem(this.table, key);
    if (!item) return 0;
    const { projectId, month } = creditsKeyParts(item);
    const old: string[] = [];
    let oldestLeft: number | undefined;
    for (const [name, value] of Object.entries(item)) {
      if (!name.startsWith(CHARGE_ATTR) || typeof value !== 'number') continue;
      if (value <= cutoff) old.push(name.slice(CHARGE_ATTR.length));
      else oldestLeft = oldestLeft === undefined ? value : Math.min(oldestLeft, value);
    }
    let refunded = 0;
    for (let i = 0; i < old.length; i += REFUNDS_PER_WRITE) {
      refunded += await this.refundAll({ projectId, month }, old.slice(i, i + REFUNDS_PER_WRITE));
    }
    const legacy = item[backgroundIndex.partitionKey] !== undefined;
    const done = oldestLeft === undefined;
    const removed = [...(done ? ['#pk', '#sk'] : []), ...(legacy ? ['#oldPk', '#oldSk'] : [])];
    // Only if no charge arrived since the read (seq unchanged); otherwise the entry stays and the next run looks again.
    await applied(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: [done ? '' : 'SET #pk = :pk, #sk = :sk', removed.length ? `REMOVE ${removed.join(', ')}` : '']
          .filter(Boolean)
          .join(' '),
        ConditionExpression: 'seq = :seq',
        ExpressionAttributeNames: {
          '#pk': workIndex.partitionKey,
          '#sk': workIndex.sortKey,
          ...(legacy ? { '#oldPk': backgroundIndex.partitionKey, '#oldSk': backgroundIndex.sortKey } : {}),
        },
        ExpressionAttributeValues: {
          ':seq': item.seq,
          ...(done
            ? {}
            : {
                ':pk': workIndex.creditSweepPartitionOf(projectId),
                ':sk': workIndex.creditSweepSortKey(oldestLeft!),
              }),
        },
      }),
    );
    return refunded;
  }

  /** Refunds several open charges of one item in one write; one by one when any of them was closed meanwhile. */
  private async refundAll(where: { projectId: string; month: string }, chargeIds: string[]): Promise<number> {
    if (chargeIds.length === 1) return (await this.refund({ ...where, chargeId: chargeIds[0]! })) ? 1 : 0;
    const names = Object.fromEntries(chargeIds.map((id, i) => [`#c${i}`, CHARGE_ATTR + id]));
    const together = await applied(
      updateItem(this.table, {
        Key: keys.credits(where.projectId, where.month),
        UpdateExpression:
          'SET available = available + :n, refunded = if_not_exists(refunded, :zero) + :n ADD #day :n ' +
          `REMOVE ${Object.keys(names).join(', ')}`,
        ConditionExpression: Object.keys(names)
          .map((n) => `attribute_exists(${n})`)
          .join(' AND '),
        ExpressionAttributeNames: {
          ...names,
          '#day': DAY_REFUNDED_ATTR + day2(dayOfMonthFor(where.month, new Date())),
        },
        ExpressionAttributeValues: { ':n': chargeIds.length, ':zero': 0 },
      }),
    );
    if (together) return chargeIds.length;
    let refunded = 0;
    for (const chargeId of chargeIds) if (await this.refund({ ...where, chargeId })) refunded++;
    return refunded;
  }
}
