import type { SecretBox } from '../../kernel/secret-box.ts';
import type { Channel } from '../channel.ts';
import { mailboxOf } from '../list-unsubscribe.ts';
import { collections, inCollection, keys } from '../../contract/keys.ts';
import { type DynamoTable, queryPage, readItem, writeBatch } from '../../kernel/aws/dynamo-table.ts';

/**
 * Channels found without their project: inbound URLs carry only the channel id, and inbound mail only the address.
 * - `keys.channelById`: a copy of the channel item (provider sealed as on the channel), one GetItem away.
 * - `keys.inboundAddress`: the email channels a mailbox belongs to.
 * The channel store writes these beside the channel item and deletes them with it.
 */

/** The directory items of a channel, from its stored item (the attributes the channel store writes). */
export function directoryItems(channelItem: Record<string, unknown>): Record<string, unknown>[] {
  const plain = channelItem.channel as { channelId: string; projectId: string; type: string; address: string };
  const { pk: _pk, sk: _sk, credits: _credits, ...rest } = channelItem;
  const items: Record<string, unknown>[] = [{ ...rest, ...keys.channelById(plain.channelId) }];
  if (plain.type === 'email')
    items.push({
      ...keys.inboundAddress(plain.address, plain.projectId, plain.channelId),
      projectId: plain.projectId,
      channelId: plain.channelId,
    });
  return items;
}

/** Writes (or deletes) a channel's directory items in one BatchWriteItem. */
export function writeDirectory(
  table: DynamoTable,
  channelItem: Record<string, unknown>,
  action: 'put' | 'delete',
): Promise<void> {
  return writeBatch(
    table,
    directoryItems(channelItem).map((Item) =>
      action === 'put' ? { PutRequest: { Item } } : { DeleteRequest: { Key: { pk: Item.pk, sk: Item.sk } } },
    ),
  );
}

/** Reads the directory: a channel by id (one GetItem), the channels of a mailbox (one Query). */
export class DynamoChannelDirectory {
  constructor(
    private readonly table: DynamoTable,
    private readonly fromItem: (item: Record<string, unknown>) => Channel,
  ) {}

  static over(
    table: DynamoTable,
    secrets: SecretBox,
    fromItem: (item: Record<string, unknown>, secrets: SecretBox) => Channel,
  ) {
    return new DynamoChannelDirectory(table, (item) => fromItem(item, secrets));
  }

  async findById(channelId: string): Promise<Channel | undefined> {
    const item = await readItem(this.table, keys.channelById(channelId));
    return item ? this.fromItem(item) : undefined;
  }

  findByAddress(address: string): Promise<{ projectId: string; channelId: string }[]> {
    return findChannelsByAddress(this.table, address);
  }
}

/**
 * The email channels whose mailbox this address reaches (any project): one Query. A channel's unsubscribe address
 * (`local+unsub-<token>@domain`, ../list-unsubscribe.ts) reaches the mailbox `local@domain`.
 */
export async function findChannelsByAddress(
  table: DynamoTable,
  address: string,
): Promise<{ projectId: string; channelId: string }[]> {
  const mailbox = collections.channelsAtAddress(mailboxOf(address));
  const out = await queryPage(table, { ...inCollection(mailbox), Limit: 25 });
  return (out.Items ?? []).map((i) => ({ projectId: String(i.projectId), channelId: String(i.channelId) }));
}
