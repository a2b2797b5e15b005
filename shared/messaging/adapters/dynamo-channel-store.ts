import type { SecretBox } from '../../kernel/secret-box.ts';
import type { Channel, ChannelChange, ChannelStore, ProviderConfig } from '../channel.ts';
import {
  applied,
  conditionalWrite,
  deleteItem,
  type DynamoTable,
  putItem,
  queryPageOf,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import { writeDirectory } from './dynamo-channel-directory.ts';
import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';

/**
 * Channels under their project: `PRJ#<projectId>` / `CH#<channelId>`. The message credits are an attribute of the
 * same item (`credits`, absent = unmetered), so a send reads the channel and its balance in one GetItem and
 * charges with one conditional UpdateItem. Provider settings other than sandbox are stored sealed (they carry
 * credentials), bound to the channel.
 */
export class DynamoChannelStore implements ChannelStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets: SecretBox,
  ) {}

  async create(channel: Channel): Promise<void> {
    const { credits, provider, ...plain } = channel;
    const sealed =
      provider.kind === 'sandbox' ? undefined : this.secrets.seal(JSON.stringify(provider), context(channel));
    const item = {
      ...keys.channel(channel.projectId, channel.channelId),
      channel: { ...plain, providerKind: provider.kind },
      ...(sealed ? { providerSealed: sealed } : {}),
      ...(credits === undefined ? {} : { credits }),
    };
    await putItem(this.table, { Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
    // Inbound reports find the channel by id (and mail by address): channel-directory.ts.
    await writeDirectory(this.table, item, 'put');
  }

  async get(projectId: string, channelId: string): Promise<Channel | undefined> {
    const item = await readItem(this.table, keys.channel(projectId, channelId));
    return item ? this.fromItem(item) : undefined;
  }

  async list(projectId: string, page: PageRequest): Promise<Page<Channel>> {
    const collection = collections.channels(projectId);
    const out = await queryPageOf(
      this.table,
      { ...inCollection(collection), ConsistentRead: true },
      page,
      pageKeyOf(collection),
    );
    return { ...out, items: out.items.map((item) => this.fromItem(item)) };
  }

  async delete(projectId: string, channelId: string): Promise<boolean> {
    const out = await deleteItem(this.table, {
      Key: keys.channel(projectId, channelId),
      ReturnValues: 'ALL_OLD',
    });
    if (out.Attributes) await writeDirectory(this.table, out.Attributes, 'delete');
    return out.Attributes !== undefined;
  }

  async addCredits(projectId: string, channelId: string, amount: number): Promise<Channel | undefined> {
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.channel(projectId, channelId),
        UpdateExpression: 'SET credits = if_not_exists(credits, :zero) + :amount',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':zero': 0, ':amount': amount },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return write.applied && write.output.Attributes ? this.fromItem(write.output.Attributes) : undefined;
  }

  chargeCredit(projectId: string, channelId: string): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.channel(projectId, channelId),
        UpdateExpression: 'SET credits = credits - :one',
        ConditionExpression: 'credits >= :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }

  async refundCredit(projectId: string, channelId: string): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.channel(projectId, channelId),
        UpdateExpression: 'SET credits = credits + :one',
        ConditionExpression: 'attribute_exists(credits)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }

  /** One conditional UpdateItem on the channel item, then its directory copy rewritten (inbound reads the copy). */
  async update(projectId: string, channelId: string, change: ChannelChange): Promise<Channel | undefined> {
    const set: string[] = [];
    const remove: string[] = [];
    const values: Record<string, unknown> = {};
    const names: Record<string, string> = { '#channel': 'channel' };
    if (change.name !== undefined) {
      set.push('#channel.#name = :name');
      names['#name'] = 'name';
      values[':name'] = change.name;
    }
    for (const field of ['optOutKeywords', 'optInKeywords', 'pace'] as const) {
      const value = change[field];
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) remove.push(`#channel.#${field}`);
      else {
        set.push(`#channel.#${field} = :${field}`);
        values[`:${field}`] = value;
      }
    }
    if (!set.length && !remove.length) return this.get(projectId, channelId);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.channel(projectId, channelId),
        UpdateExpression: [
          set.length ? `SET ${set.join(', ')}` : '',
          remove.length ? `REMOVE ${remove.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join(' '),
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (!write.applied || !write.output.Attributes) return undefined;
    await writeDirectory(this.table, write.output.Attributes, 'put');
    return this.fromItem(write.output.Attributes);
  }

  private fromItem(item: Record<string, unknown>): Channel {
    return channelFromItem(item, this.secrets);
  }
}

/** A channel from its stored item (the channel item, or its copy in the directory), credentials opened. */
export function channelFromItem(item: Record<string, unknown>, secrets: SecretBox): Channel {
  const { providerKind, ...plain } = item.channel as Omit<Channel, 'provider' | 'credits'> & {
    providerKind: ProviderConfig['kind'];
  };
  const provider: ProviderConfig =
    providerKind === 'sandbox'
      ? { kind: 'sandbox' }
      : (JSON.parse(secrets.open(item.providerSealed as string, context(plain))) as ProviderConfig);
  const credits = item.credits as number | undefined;
  return { ...plain, provider, ...(credits === undefined ? {} : { credits }) };
}

function context(channel: Pick<Channel, 'projectId' | 'channelId'>): string {
  return `channel:${channel.projectId}/${channel.channelId}:provider`;
}
