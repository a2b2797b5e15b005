import type { WebhookTarget } from '#shared/integrations/index.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import type { DeliveryRecord } from '#shared/webhooks/model.ts';
import type { OutboxMark } from '#shared/events/index.ts';
import type {
  AttemptOutcome,
  AttemptWrite,
  DeliveryQueue,
  DeliveryStore,
  EventBodies,
  HealthFold,
  WebhookHealthState,
  QueuedJob,
  WebhookDirectory,
  WebhookHealthStore,
  WebhookRequest,
  WebhookSender,
} from '#shared/webhooks/ports.ts';

export const secretBox = createSecretBox(Buffer.alloc(32, 7).toString('base64'));

export function webhook(overrides: Partial<WebhookTarget> = {}): WebhookTarget {
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  return {
    projectId: 'prj_1',
    integrationId: 'int_1',
    scope: 'general',
    channelId: null,
    url: 'https://hooks.example.com/a',
    bearerToken: null,
    eventTypes: null,
    ordering: 'none',
    filter: null,
    enabled: true,
    disabledReason: null,
    signingSecrets: [secret],
    signingKeys: [],
    ...overrides,
  };
}

export class FakeDirectory implements WebhookDirectory {
  lists = 0;
  gets = 0;
  disabled: { integrationId: string; reason: string }[] = [];
  constructor(public webhooks: WebhookTarget[]) {}
  async listWebhooks(projectId: string) {
    this.lists++;
    return this.webhooks.filter((w) => w.projectId === projectId);
  }
  async getWebhook(projectId: string, integrationId: string) {
    this.gets++;
    return this.webhooks.find((w) => w.projectId === projectId && w.integrationId === integrationId);
  }
  marks: { integrationId: string; eventId: string }[] = [];
  async disableWebhook(_p: string, integrationId: string, reason: string, mark?: OutboxMark) {
    const w = this.webhooks.find((x) => x.integrationId === integrationId);
    if (!w?.enabled) return false;
    this.disabled.push({ integrationId, reason });
    Object.assign(w, { enabled: false, disabledReason: reason });
    if (mark) this.marks.push({ integrationId, eventId: mark.eventId });
    return true;
  }
  async clearDisabledMark(_p: string, integrationId: string, eventId: string) {
    this.marks = this.marks.filter((m) => !(m.integrationId === integrationId && m.eventId === eventId));
  }
}

export class FakeQueue implements DeliveryQueue {
  enqueued: QueuedJob[] = [];
  postponed: { receiptHandle: string; seconds: number }[] = [];
  async enqueue(jobs: QueuedJob[]) {
    this.enqueued.push(...jobs);
    return new Set<number>();
  }
  async postpone(items: { receiptHandle: string; seconds: number }[]) {
    this.postponed.push(...items);
    return new Set<number>();
  }
}

/** Event bodies stored once per event, in memory. */
export class FakeBodies implements EventBodies {
  stored = new Map<string, string>();
  puts = 0;
  async put(eventId: string, body: string) {
    this.puts++;
    this.stored.set(eventId, body);
  }
  async get(eventIds: readonly string[]) {
    return new Map(eventIds.flatMap((id) => (this.stored.has(id) ? [[id, this.stored.get(id)!] as const] : [])));
  }
}

export class FakeDeliveries implements DeliveryStore {
  writes: AttemptWrite[] = [];
  records = new Map<string, DeliveryRecord>();
  async recordAttempt(write: AttemptWrite) {
    const existing = this.records.get(write.deliveryId);
    if (!write.manual && existing?.status === 'succeeded') return false;
    this.writes.push(write);
    const record: DeliveryRecord = existing ?? {
      deliveryId: write.deliveryId,
      projectId: write.projectId,
      integrationId: write.integrationId,
      eventId: write.eventId,
      eventType: write.eventType,
      status: write.status,
      attempts: [],
    };
    record.attempts.push(write.attempt);
    record.status = write.status;
    record.nextAttemptAt = write.nextAttemptAt;
    record.body ??= write.body;
    record.bodyRef ??= write.bodyRef;
    this.records.set(write.deliveryId, record);
    return true;
  }
  async get(_p: string, _i: string, id: string) {
    return this.records.get(id);
  }
  async list() {
    return { items: [...this.records.values()] };
  }
  async markRetrying(_p: string, _i: string, id: string, attemptsSeen: number) {
    const r = this.records.get(id);
    if (!r || r.attempts.length !== attemptsSeen) return false;
    r.status = 'pending';
    return true;
  }
}

/** The health store's fold, as DynamoWebhookHealthStore applies it, in memory. */
export class FakeHealth implements WebhookHealthStore {
  state = new Map<string, { consecutiveFailures: number; failingSince: number | null; noticedAt?: number }>();
  marks: { integrationId: string; eventId: string }[] = [];
  writes = 0;
  async fold(_p: string, id: string, fold: HealthFold, at: number): Promise<WebhookHealthState> {
    this.writes++;
    const current = this.state.get(id) ?? { consecutiveFailures: 0, failingSince: null };
    const next =
      fold.lastSuccessAt !== undefined
        ? {
            consecutiveFailures: fold.failuresAfter,
            failingSince: fold.failuresAfter ? (fold.firstFailureAt ?? at) : null,
          }
        : {
            ...current,
            consecutiveFailures: current.consecutiveFailures + fold.failuresAfter,
            failingSince: current.failingSince ?? fold.firstFailureAt ?? at,
          };
    this.state.set(id, next);
    return {
      consecutiveFailures: next.consecutiveFailures,
      failingSince: next.consecutiveFailures ? next.failingSince : null,
      noticed: 'noticedAt' in next && next.noticedAt !== undefined,
    };
  }
  async markFailingNotice(_p: string, id: string, atLeast: number, mark: OutboxMark, at: number) {
    const current = this.state.get(id);
    if (!current || current.noticedAt !== undefined || current.consecutiveFailures < atLeast) return false;
    current.noticedAt = at;
    this.marks.push({ integrationId: id, eventId: mark.eventId });
    return true;
  }
  async clearMark(_p: string, id: string, eventId: string) {
    this.marks = this.marks.filter((m) => !(m.integrationId === id && m.eventId === eventId));
  }
  /** Since when the webhook has been failing (undefined: not failing). */
  failingSince(id: string): number | undefined {
    return this.state.get(id)?.failingSince ?? undefined;
  }
}

export class FakeSender implements WebhookSender {
  requests: WebhookRequest[] = [];
  constructor(
    public answer: (request: WebhookRequest) => AttemptOutcome | Promise<AttemptOutcome> = () => ({
      kind: 'success',
      statusCode: 200,
      durationMs: 3,
    }),
  ) {}
  async send(request: WebhookRequest) {
    this.requests.push(request);
    return this.answer(request);
  }
}
