import type { ChargeOutcome, ChargeReceipt, CreditAccount, CreditLedger } from '../credit-ledger.ts';
import type { CreditUsage, CreditUsageReader } from '../credit-usage.ts';
import { dayOfMonthFor, monthKey } from '../month.ts';
import { applied, type DynamoTable, queryPage, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { backgroundIndex, creditsKeyParts, keys } from '../../contract/keys.ts';

/** Prefix of the attributes that record open charges on a month item: `c_<chargeId>` = epoch ms of the charge. */
const CHARGE_ATTR = 'c_';
/** Per-day counters on the month item: `dc_<DD>` credits charged and `dr_<DD>` refunded on that UTC day. */
const DAY_CHARGED_ATTR = 'dc_';
const DAY_REFUNDED_ATTR = 'dr_';
const day2 = (day: number) => String(day).padStart(2, '0');

/**
 * One item per project and UTC month holds the balance (`available`), its history (`allowance`, `granted`, `spent`,
 * `refunded`) and one attribute per open charge. Every operation is a single-item conditional write: charging
 * checks the balance and records the charge atomically, refund and settle remove the charge record, so each can
 * happen once. (No transactions: dynalite has none, and one item is half the cost of a two-item transaction.)
 *
 * The sweeper finds month items with open charges through a sparse GSI (`gsi1pk = CREDIT_SWEEP`, `gsi1sk` = time of
 * the oldest charge that may still be open), set on the first charge and cleared by the sweeper when none is left.
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
          '#sweepPk = :sweepPk, #sweepSk = if_not_exists(#sweepSk, :sweepSk) ADD #day :one',
        ConditionExpression: `attribute_not_exists(#charge) AND ${balanceCondition}`,
        ExpressionAttributeNames: {
          '#charge': CHARGE_ATTR + chargeId,
          // The day's counter rides on the same write: the hot path keeps one charge write.
          '#day': DAY_CHARGED_ATTR + day2(at.getUTCDate()),
          '#sweepPk': backgroundIndex.partitionKey,
          '#sweepSk': backgroundIndex.sortKey,
        },
        ExpressionAttributeValues: {
          ':allow': account.monthlyAllowance,
          ':one': 1,
          ':zero': 0,
          ':at': at.getTime(),
          ':sweepPk': backgroundIndex.creditSweepPartition,
          ':sweepSk': backgroundIndex.sortableMs(at.getTime()),
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

  async sweep(openBefore: Date): Promise<number> {
    const gsi = backgroundIndex;
    const cutoff = openBefore.getTime();
    let refunded = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await queryPage(this.table, {
        IndexName: gsi.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk <= :cutoff',
        ExpressionAttributeNames: { '#pk': gsi.partitionKey, '#sk': gsi.sortKey },
        ExpressionAttributeValues: { ':pk': gsi.creditSweepPartition, ':cutoff': gsi.sortableMs(cutoff) },
        ExclusiveStartKey: startKey,
      });
      for (const item of page.Items ?? []) refunded += await this.sweepItem(item, cutoff);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return refunded;
  }

  /** Refunds the item's charges older than the cutoff, then moves its sweep mark to the oldest charge left. */
  private async sweepItem(item: Record<string, unknown>, cutoff: number): Promise<number> {
    const { projectId, month } = creditsKeyParts(item);
    let refunded = 0;
    let oldestLeft: number | undefined;
    for (const [name, value] of Object.entries(item)) {
      if (!name.startsWith(CHARGE_ATTR) || typeof value !== 'number') continue;
      if (value <= cutoff) {
        if (await this.refund({ projectId, month, chargeId: name.slice(CHARGE_ATTR.length) })) refunded++;
      } else {
        oldestLeft = oldestLeft === undefined ? value : Math.min(oldestLeft, value);
      }
    }
    const gsi = backgroundIndex;
    // Only if no charge arrived since the read (seq unchanged); otherwise the mark stays and the next run looks again.
    await applied(
      updateItem(this.table, {
        Key: keys.credits(projectId, month),
        UpdateExpression: oldestLeft === undefined ? 'REMOVE #pk, #sk' : 'SET #sk = :sk',
        ConditionExpression: 'seq = :seq',
        ExpressionAttributeNames: {
          ...(oldestLeft === undefined ? { '#pk': gsi.partitionKey } : {}),
          '#sk': gsi.sortKey,
        },
        ExpressionAttributeValues: {
          ':seq': item.seq,
          ...(oldestLeft === undefined ? {} : { ':sk': gsi.sortableMs(oldestLeft) }),
        },
      }),
    );
    return refunded;
  }
}
