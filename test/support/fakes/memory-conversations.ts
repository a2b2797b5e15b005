import type {
  Channel,
  ConversationMessage,
  ConversationStore,
  SendLookup,
  SendLookupKeys,
  Suppression,
  SuppressionChange,
} from '#shared/messaging/index.ts';
import type { Page, PageRequest } from '#shared/kernel/page.ts';

interface SuppressionItem {
  state: 'suppressed' | 'lifted';
  suppression?: Suppression;
  order: string;
  marks: Map<string, string>;
}

/**
 * Conversations in memory, with the DynamoDB adapter's rules: the window moves forward only, a suppression change
 * applies only over an older one (admin changes whatever the order), each change carries its mark, the first
 * Message-ID of a thread keeps it. `lookups` counts the send's reads (one per send).
 */
export class MemoryConversations implements ConversationStore {
  readonly channels = new Map<string, Channel>();
  readonly lastInbound = new Map<string, string>();
  readonly suppressionItems = new Map<string, SuppressionItem>();
  readonly threadItems = new Map<string, string>();
  /** `<channelId>/<Message-ID>` → the addresses a mail the channel sent went to. */
  readonly sentMails = new Map<string, string[]>();
  readonly messages: ConversationMessage[] = [];
  lookups = 0;

  addChannel(channel: Channel): this {
    this.channels.set(`${channel.projectId}/${channel.channelId}`, channel);
    return this;
  }

  private suppressionKey(projectId: string, channelId: string, contact: string) {
    return `${projectId}/${channelId}/${contact}`;
  }

  async lookupForSend(projectId: string, channelId: string, keys: SendLookupKeys): Promise<SendLookup | undefined> {
    this.lookups++;
    const channel = this.channels.get(`${projectId}/${channelId}`);
    if (!channel) return undefined;
    const lastInbound = new Map<string, string>();
    for (const c of keys.windowContacts) {
      const at = this.lastInbound.get(`${channelId}/${c}`);
      if (at) lastInbound.set(c, at);
    }
    const suppressed = new Map<string, Suppression>();
    for (const c of keys.suppressionContacts) {
      const item = this.suppressionItems.get(this.suppressionKey(projectId, channelId, c));
      if (item?.state === 'suppressed') suppressed.set(c, item.suppression!);
    }
    const threads = new Map<string, string>();
    for (const id of keys.threadIds) {
      const conversationId = this.threadItems.get(`${channelId}/${id}`);
      if (conversationId) threads.set(id, conversationId);
    }
    return { channel, lastInbound, suppressed, threads };
  }

  async state(projectId: string, channelId: string, contact: string) {
    const at = this.lastInbound.get(`${channelId}/${contact}`);
    const item = this.suppressionItems.get(this.suppressionKey(projectId, channelId, contact));
    return {
      ...(at ? { lastInboundAt: at } : {}),
      ...(item?.state === 'suppressed' ? { suppression: item.suppression! } : {}),
    };
  }

  async touchInbound(channelId: string, contact: string, at: string) {
    const key = `${channelId}/${contact}`;
    const before = this.lastInbound.get(key);
    if (!before || before < at) this.lastInbound.set(key, at);
  }

  async threads(channelId: string, messageIds: string[]) {
    const out = new Map<string, string>();
    for (const id of messageIds) {
      const c = this.threadItems.get(`${channelId}/${id}`);
      if (c) out.set(id, c);
    }
    return out;
  }

  async sentMail(channelId: string, messageId: string) {
    return this.sentMails.get(`${channelId}/${messageId}`);
  }

  async rememberThread(channelId: string, messageId: string, conversationId: string) {
    const key = `${channelId}/${messageId}`;
    if (!this.threadItems.has(key)) this.threadItems.set(key, conversationId);
  }

  async changeSuppression(change: SuppressionChange) {
    const key = this.suppressionKey(change.projectId, change.channelId, change.contact);
    const item = this.suppressionItems.get(key);
    const newer = !item || item.order < change.order;
    if (change.suppression) {
      if (item && (item.state === 'suppressed' || !newer)) {
        // Already suppressed: the order still moves forward (as the DynamoDB adapter's second write does).
        if (item.state === 'suppressed' && newer) item.order = change.order;
        return false;
      }
      const marks = item?.marks ?? new Map<string, string>();
      marks.set(change.mark.eventId, change.mark.message);
      this.suppressionItems.set(key, {
        state: 'suppressed',
        suppression: change.suppression,
        order: change.order,
        marks,
      });
      return true;
    }
    if (item?.state !== 'suppressed' || (!change.force && !newer)) {
      if (!change.force && newer && item?.state !== 'suppressed')
        this.suppressionItems.set(key, { state: 'lifted', order: change.order, marks: item?.marks ?? new Map() });
      return false;
    }
    item.state = 'lifted';
    item.order = change.order;
    item.marks.set(change.mark.eventId, change.mark.message);
    return true;
  }

  async pendingSuppressionEvents(projectId: string, channelId: string, contact: string) {
    const item = this.suppressionItems.get(this.suppressionKey(projectId, channelId, contact));
    return [...(item?.marks ?? new Map())].map(([eventId, message]) => ({ eventId, message }));
  }

  async clearSuppressionEvent(projectId: string, channelId: string, contact: string, eventId: string) {
    this.suppressionItems.get(this.suppressionKey(projectId, channelId, contact))?.marks.delete(eventId);
  }

  async listSuppressions(projectId: string, channelId: string, page: PageRequest): Promise<Page<Suppression>> {
    const prefix = `${projectId}/${channelId}/`;
    const all = [...this.suppressionItems]
      .filter(([k, v]) => k.startsWith(prefix) && v.state === 'suppressed')
      .map(([, v]) => v.suppression!)
      .sort((a, b) => (a.contact < b.contact ? -1 : 1));
    const start = page.cursor ? all.findIndex((s) => s.contact === page.cursor) + 1 : 0;
    const items = all.slice(start, start + page.limit);
    return start + page.limit < all.length ? { items, nextCursor: items.at(-1)!.contact } : { items };
  }

  async listMessages(projectId: string, channelId: string, contact: string, page: PageRequest) {
    const all = this.messages
      .filter((m) => m.projectId === projectId && m.channelId === channelId && m.contact === contact)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    return { items: all.slice(0, page.limit) };
  }
}
