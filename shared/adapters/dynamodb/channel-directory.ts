import { BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SecretBox } from '../../integrations/secret-box.ts';
import type { Channel } from '../../messaging/channel.ts';
import type { DynamoTable } from './table.ts';

/**
 * Channels found without their project: inbound URLs carry only the channel id, and inbound mail only the address.
 * - `CHID#<channelId>` / `CHID`: a copy of the channel item (provider sealed as on the channel), one GetItem away.
 * - `INADDR#<address, lower case>` / `CH#<projectId>#<channelId>`: the email channels a mailbox belongs to.
 * The channel store writes these beside the channel item and deletes them with it.
 */
export const channelByIdKey = (channelId: string) => ({ pk: `CHID#${channelId}`, sk: 'CHID' });
export const inboundAddressKey = (address: string, projectId?: string, channelId?: string) => ({
  pk: `INADDR#${address.trim().toLowerCase()}`,
  sk: projectId && channelId ? `CH#${projectId}#${channelId}` : '',
});

/** The directory items of a channel, from its stored item (the attributes the channel store writes). */
export function directoryItems(channelItem: Record<string, unknown>): Record<string, unknown>[] {
  const plain = channelItem.channel as { channelId: string; projectId: string; type: string; address: string };
  const { pk: _pk, sk: _sk, credits: _credits, ...rest } = channelItem;
  const items: Record<string, unknown>[] = [{ ...rest, ...channelByIdKey(plain.channelId) }];
  if (plain.type === 'email')
    items.push({
      ...inboundAddressKey(plain.address, plain.projectId, plain.channelId),
      projectId: plain.projectId,
      channelId: plain.channelId,
    });
  return items;
}

/** Writes (or deletes) a channel's directory items in one BatchWriteItem. */
export async function writeDirectory(
  table: DynamoTable,
  channelItem: Record<string, unknown>,
  action: 'put' | 'delete',
): Promise<void> {
  let requests = directoryItems(channelItem).map((Item) =>
    action === 'put' ? { PutRequest: { Item } } : { DeleteRequest: { Key: { pk: Item.pk, sk: Item.sk } } },
  );
  for (let attempt = 0; requests.length; attempt++) {
    if (attempt === 5) throw new Error('DynamoDB left channel directory items unprocessed');
    if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const out = await table.client.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }));
    requests = (out.UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
  }
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
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: channelByIdKey(channelId), ConsistentRead: true }),
    );
    return out.Item ? this.fromItem(out.Item) : undefined;
  }

  findByAddress(address: string): Promise<{ projectId: string; channelId: string }[]> {
    return findChannelsByAddress(this.table, address);
  }
}

/** The email channels whose address this is (any project): one Query. */
export async function findChannelsByAddress(
  table: DynamoTable,
  address: string,
): Promise<{ projectId: string; channelId: string }[]> {
  const out = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': inboundAddressKey(address).pk },
      Limit: 25,
    }),
  );
  return (out.Items ?? []).map((i) => ({ projectId: String(i.projectId), channelId: String(i.channelId) }));
}
