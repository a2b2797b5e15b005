import { type OrderedReport, senderOfMailNotification } from './order.ts';
import type { InboundReport } from './report.ts';

/** A message of the ordered lane as its worker receives it (an SQS record of the FIFO `inboundOrdered` queue). */
export interface LaneMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** Its message group: one channel's contact. */
  groupId: string;
  /** How many times it was received, this time included (SQS's ApproximateReceiveCount). */
  receiveCount: number;
}

export interface OrderedLaneDeps {
  /** Works one report (normalised, recorded, its events published); throws when it should be tried again. */
  work(report: InboundReport): Promise<unknown>;
  /** Queues a report on the unordered lane, to be worked there out of line. */
  setAside(report: InboundReport): Promise<void>;
  /** Makes received messages visible again after their `seconds`. */
  postpone(entries: { receiptHandle: string; seconds: number }[]): Promise<void>;
  /** Deletes messages worked, before the batch ends (the batch's end deletes the rest, and these again: harmless). */
  commit(receiptHandles: string[]): Promise<void>;
  now?: () => number;
  log: {
    warn(message: string, extra?: Record<string, unknown>): void;
    error(message: string, extra?: Record<string, unknown>): void;
  };
}

/** A report that fails after this many receives is set aside, and its contact's next reports go on. */
export const INBOUND_SET_ASIDE_AFTER = 8;
/**
 * A report received this many times is set aside without another try: its tries keep ending with no answer at all
 * (the worker dies or times out on it), which no failure handling inside the worker ever sees.
 */
export const INBOUND_SET_ASIDE_UNTRIED_AFTER = 20;
/** A group's next report is not started with less than this left of the invocation (a media fetch takes up to 30 s). */
export const INBOUND_START_RESERVE_MS = 35_000;

/**
 * A batch running longer than this deletes what it has worked so far (and again each time this passes): a batch is
 * one contact's reports one after another, and a worker that dies before the batch ends would otherwise give every
 * one of them back, so a slow, crashing worker would redo the same reports without end. A batch done sooner (the
 * usual case) costs no extra call.
 */
export const INBOUND_COMMIT_EVERY_MS = 1_000;

/** How long a failed report waits before its next try: 5 s, doubling, at most 5 minutes (about 10 minutes in all). */
export function retryDelaySeconds(receiveCount: number): number {
  return Math.min(300, 5 * 2 ** Math.max(0, receiveCount - 1));
}

/**
 * The ordered lane's worker, for one batch: each contact's reports (a message group) one after another, in the order
 * the batch holds them, groups at once. A report that fails stops its group: it is tried again after a growing wait
 * ({@link retryDelaySeconds}), the group's later reports behind it, so nothing of that contact overtakes it. A report
 * still failing at its {@link INBOUND_SET_ASIDE_AFTER}th receive (or received {@link INBOUND_SET_ASIDE_UNTRIED_AFTER}
 * times) is set aside on the unordered lane, where it is retried and, failing still, dead-lettered: one broken report
 * holds its conversation about ten minutes, never for good, and is not lost. Returns the ids to receive again.
 */
export function makeOrderedLane(deps: OrderedLaneDeps) {
  const now = deps.now ?? Date.now;

  async function setAside(m: LaneMessage, report: InboundReport, cause: string): Promise<boolean> {
    try {
      await deps.setAside(report);
      deps.log.error('inbound report set aside: worked out of order', {
        messageId: m.messageId,
        channelId: report.channelId,
        receiveCount: m.receiveCount,
        cause,
      });
      return true;
    } catch (error) {
      deps.log.error('inbound report could not be set aside: retried in order', {
        messageId: m.messageId,
        cause: String(error),
      });
      return false;
    }
  }

  /** Whether the message is done with (worked, dropped as unreadable, or set aside). */
  async function workOne(m: LaneMessage): Promise<boolean> {
    let report: InboundReport;
    try {
      report = JSON.parse(m.body) as InboundReport;
    } catch {
      deps.log.warn('inbound report is not JSON: dropped', { messageId: m.messageId });
      return true;
    }
    if (m.receiveCount >= INBOUND_SET_ASIDE_UNTRIED_AFTER)
      return setAside(m, report, 'received again and again without an answer');
    try {
      await deps.work(report);
      return true;
    } catch (error) {
      if (m.receiveCount >= INBOUND_SET_ASIDE_AFTER) return setAside(m, report, String(error));
      deps.log.error('inbound report failed: retried before its contact’s next ones', {
        messageId: m.messageId,
        receiveCount: m.receiveCount,
        cause: String(error),
      });
      return false;
    }
  }

  /** One group, in order; what is left when a report fails (or time runs short) comes back, in the same order. */
  async function workGroup(group: LaneMessage[], remainingMs: () => number, worked: (m: LaneMessage) => Promise<void>) {
    for (const [i, m] of group.entries()) {
      const rest = group.slice(i + 1);
      if (remainingMs() < INBOUND_START_RESERVE_MS) return leftOver(group.slice(i), 1);
      if (await workOne(m)) {
        await worked(m);
        continue;
      }
      return {
        again: [m.messageId, ...rest.map((r) => r.messageId)],
        postpone: [
          { receiptHandle: m.receiptHandle, seconds: retryDelaySeconds(m.receiveCount) },
          ...leftOver(rest, 1).postpone,
        ],
      };
    }
    return { again: [], postpone: [] };
  }

  return async function workBatch(messages: readonly LaneMessage[], remainingMs: () => number): Promise<string[]> {
    const groups = new Map<string, LaneMessage[]>();
    for (const m of messages) groups.set(m.groupId, [...(groups.get(m.groupId) ?? []), m]);
    let committedAt = now();
    const uncommitted: string[] = [];
    const worked = async (m: LaneMessage) => {
      uncommitted.push(m.receiptHandle);
      if (now() - committedAt < INBOUND_COMMIT_EVERY_MS) return;
      committedAt = now();
      await deps.commit(uncommitted.splice(0)).catch((cause: unknown) =>
        deps.log.warn('worked inbound reports not deleted yet: the batch’s end deletes them', {
          cause: String(cause),
        }),
      );
    };
    const outcomes = await Promise.all([...groups.values()].map((group) => workGroup(group, remainingMs, worked)));
    const postpone = outcomes.flatMap((o) => o.postpone);
    if (postpone.length)
      await deps
        .postpone(postpone)
        .catch((cause: unknown) =>
          deps.log.warn('inbound reports not postponed: back after their visibility timeout', { cause: String(cause) }),
        );
    return outcomes.flatMap((o) => o.again);
  };
}

/** Messages given back untried, visible again after `seconds` (their group is held by the one before them, if any). */
function leftOver(messages: LaneMessage[], seconds: number) {
  return {
    again: messages.map((m) => m.messageId),
    postpone: messages.map((m) => ({ receiptHandle: m.receiptHandle, seconds })),
  };
}

export interface UnorderedLaneDeps {
  /** The per-channel reports of an SES receipt notification; undefined when the message is not one. */
  mailReports(body: unknown): Promise<InboundReport[] | undefined>;
  /** Queues reports on the ordered lane. */
  forward(copies: OrderedReport[]): Promise<void>;
  /** Works one report. */
  work(report: InboundReport): Promise<unknown>;
}

/**
 * The unordered lane's worker, for one message: an SES receipt notification (SNS delivers only to standard queues) is
 * forwarded to the ordered lane, one report per channel in the group of the mail's sender; anything else is a report
 * set aside from the ordered lane (or queued before there was one), worked here.
 */
export function makeUnorderedLane(deps: UnorderedLaneDeps) {
  return async function workOne(body: unknown): Promise<void> {
    const mail = await deps.mailReports(body);
    if (!mail) return void (await deps.work(body as InboundReport));
    const sender = senderOfMailNotification(body);
    if (mail.length) await deps.forward(mail.map((report) => ({ report, contact: sender })));
  };
}
