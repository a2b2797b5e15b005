import {
  makeEventPublisher,
  type EventEnvelope,
  type EventMessage,
  type EventPublisher,
} from '#shared/events/index.ts';

/**
 * The real event publisher over an in-memory events queue and payload store: what producers queued, as messages and
 * as the envelopes webhooks would receive. `failSends` makes the queue refuse the next n sends (a queue outage, or
 * the process dying before the send).
 */
export class RecordingPublisher implements EventPublisher {
  readonly messages: EventMessage[] = [];
  /** The envelopes queued so far, in order (kept as they are queued: the same array all along). */
  readonly envelopes: EventEnvelope[] = [];
  readonly payloads = new Map<string, string>();
  failSends = 0;
  private readonly publisher: EventPublisher;

  constructor(now?: () => Date) {
    this.publisher = makeEventPublisher({
      queue: {
        send: async (message) => {
          if (this.failSends > 0) {
            this.failSends--;
            throw new Error('the events queue cannot be reached');
          }
          this.messages.push(message);
          this.envelopes.push(JSON.parse(message.body ?? this.payloads.get(message.bodyRef!)!) as EventEnvelope);
        },
      },
      payloads: {
        put: async (key, body) => void this.payloads.set(key, body),
        get: async (key) => this.payloads.get(key),
      },
      ...(now ? { now } : {}),
    });
  }

  /** The envelopes queued so far, in order (bodies parked in the payload store read back). */
  get events(): EventEnvelope[] {
    return this.envelopes;
  }

  publish: EventPublisher['publish'] = (input, identity) => this.publisher.publish(input, identity);
  prepare: EventPublisher['prepare'] = (input, identity) => this.publisher.prepare(input, identity);
  send: EventPublisher['send'] = (message) => this.publisher.send(message);
}
