import type { WebhookTarget } from '#shared/integrations/integration.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import type { DeliveryRecord } from '#shared/webhooks/model.ts';
import type {
  AttemptOutcome,
  AttemptWrite,
  DeliveryQueue,
  DeliveryStore,
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
    enabled: true,
    disabledReason: null,
    signingSecret: secret,
    previousSigningSecret: null,
    signingSecrets: [secret],
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
  async disableWebhook(_p: string, integrationId: string, reason: string) {
    this.disabled.push({ integrationId, reason });
    const w = this.webhooks.find((x) => x.integrationId === integrationId);
    if (w) Object.assign(w, { enabled: false, disabledReason: reason });
    return Boolean(w);
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

export class FakeHealth implements WebhookHealthStore {
  failingSince = new Map<string, number>();
  writes = 0;
  async recordFailure(_p: string, id: string, at: number) {
    this.writes++;
    if (!this.failingSince.has(id)) this.failingSince.set(id, at);
    return this.failingSince.get(id)!;
  }
  async recordSuccess(_p: string, id: string) {
    this.writes++;
    this.failingSince.delete(id);
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
