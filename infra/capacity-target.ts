import { scheduledWorkers } from '#shared/contract/workers.ts';

/**
 * The load the deployment is sized for: named scenarios, each a mix of request types per second, and how that load
 * spreads, over how many distinct values of each kind of id in a key (projects, webhooks, conversations...) a request
 * type's load divides. The capacity model (bench/capacity.ts) scales the recorded units (./recorded-units.json) to
 * them against every limit; ./capacity-plan.ts sizes concurrency and throttles for them.
 */

/** Distinct values per kind of id in a key (`project`, `webhook`, `conversation`...): how far a load spreads. */
export type Spread = Partial<Record<string, number>>;

export interface MixEntry {
  type: string;
  perSecond: number;
  /** Overrides of the scenario's spread for this request type (ordered deliveries go to the ordered webhooks only). */
  spread?: Spread;
}

export interface Scenario {
  id: string;
  title: string;
  /** The assumptions behind the mix, in words. */
  assumptions: string;
  mix: MixEntry[];
  spread: Spread;
}

/** Many conversations: a partition per conversation takes a negligible share. */
const MANY = 1_000_000;

/**
 * The messaging mix of an event rate: sends, their status callbacks, inbound messages (half SMS, half WhatsApp), each
 * one event fanned out to every webhook of its project.
 */
function messagingMix(
  eventsPerSecond: number,
  webhooks: { unordered: number; ordered: number },
  spreads: { unordered?: Spread; ordered?: Spread } = {},
): MixEntry[] {
  const share = { send: 0.4, status: 0.4, inbound: 0.2 };
  const mix: MixEntry[] = [
    { type: 'send', perSecond: eventsPerSecond * share.send },
    { type: 'status callback', perSecond: eventsPerSecond * share.status },
    { type: 'inbound message', perSecond: (eventsPerSecond * share.inbound) / 2 },
    { type: 'inbound WhatsApp message', perSecond: (eventsPerSecond * share.inbound) / 2 },
    { type: 'event fan-out', perSecond: eventsPerSecond },
  ];
  if (webhooks.unordered)
    mix.push({
      type: 'webhook delivery',
      perSecond: eventsPerSecond * webhooks.unordered,
      ...(spreads.unordered ? { spread: spreads.unordered } : {}),
    });
  if (webhooks.ordered)
    mix.push({
      type: 'ordered webhook delivery',
      perSecond: eventsPerSecond * webhooks.ordered,
      ...(spreads.ordered ? { spread: spreads.ordered } : {}),
    });
  return mix;
}

const MESSAGING_ASSUMPTIONS =
  'events: 40 % sends, 40 % their status callbacks, 20 % inbound messages (half Twilio SMS, half WhatsApp); ' +
  'each event is fanned out once and delivered once to each webhook of its project';

/** Messages in a batch the workload sends (bench/capacity/traffic.ts): a batch's units are for this many. */
export const WORKLOAD_BATCH_ITEMS = 10;

/** The due sweep's runs a second on AWS, as scheduled. */
const DUE_SWEEPS_PER_SECOND = 1 / (60 * (scheduledWorkers.find((w) => w.fn === 'due-sweeper')?.everyMinutesOnAws ?? 1));

/**
 * Campaigns and the other paths of a platform's daily use, across 100 projects: batches sent at each channel's pace,
 * scheduled sends all due in the same minute (the due partitions' worst case), pollers, the console, destinations.
 */
const volume: Scenario = {
  id: 'S5',
  title:
    '1,000 batch items/s and 200 scheduled sends/s across 100 projects, with pollers, the console and destinations',
  assumptions:
    'batches of 10 at 100 a second (1,000 items paced by their channels); 200 scheduled sends a second, all due in ' +
    'the same minute; each of those messages one event fanned out to its project webhook; 100 polls, 50 console ' +
    'and portal pages and 500 deliveries into customers’ SQS queues a second; the due sweep once a minute',
  mix: [
    { type: 'batch send', perSecond: 1_000 / WORKLOAD_BATCH_ITEMS },
    { type: 'scheduled send', perSecond: 200 },
    { type: 'event fan-out', perSecond: 1_200 },
    { type: 'webhook delivery', perSecond: 1_200 },
    { type: 'events poll', perSecond: 100 },
    { type: 'console page', perSecond: 50 },
    { type: 'destination delivery', perSecond: 500 },
    { type: 'due sweep', perSecond: DUE_SWEEPS_PER_SECOND },
  ],
  spread: {
    project: 100,
    channel: 100,
    token: 200,
    integration: 100,
    webhook: 200,
    contact: MANY,
    conversation: MANY,
  },
};

export const scenarios: Scenario[] = [
  {
    id: 'S1',
    title: '10,000 events/s across 1,000 projects, 3 webhooks a project, one in ten ordered',
    assumptions: `${MESSAGING_ASSUMPTIONS}; 2 channels and 1 send token a project; conversations many`,
    // 3,000 webhooks: 2,700 in any order, 300 ordered by conversation; each receives every event of its project.
    mix: messagingMix(
      10_000,
      { unordered: 2.7, ordered: 0.3 },
      { unordered: { webhook: 2_700 }, ordered: { webhook: 300 } },
    ),
    spread: {
      project: 1_000,
      channel: 2_000,
      token: 1_000,
      integration: 1_000,
      webhook: 3_000,
      contact: MANY,
      conversation: MANY,
    },
  },
  {
    id: 'S2',
    title: 'one project, 2,000 events/s to one webhook over many conversations',
    assumptions: `${MESSAGING_ASSUMPTIONS}; one SMS channel, one send token, one webhook (any order)`,
    mix: messagingMix(2_000, { unordered: 1, ordered: 0 }),
    spread: { project: 1, channel: 1, token: 1, integration: 1, webhook: 1, contact: MANY, conversation: MANY },
  },
  {
    id: 'S3',
    title: '1,000 Bots API requests/s across 100 projects (completion, chat, search)',
    assumptions: 'a third each of /completion, /chat/completions and /search; one API token and one bot a project',
    mix: [
      { type: 'completion', perSecond: 1_000 / 3 },
      { type: 'chat completion', perSecond: 1_000 / 3 },
      { type: 'search', perSecond: 1_000 / 3 },
    ],
    spread: { project: 100, token: 100, bot: 100 },
  },
  {
    id: 'S4',
    title: '100,000 knowledge files an hour across 100 bots',
    assumptions: 'text files uploaded through the management API, one at a time (the most calls per file)',
    mix: [{ type: 'knowledge file ingested', perSecond: 100_000 / 3_600 }],
    spread: { project: 100, bot: 100 },
  },
  volume,
];

/**
 * One conversation of one project, alone, on an ordered webhook: the mix of S1 per event, every placeholder one value.
 * Scaled to the rate at which its hottest key reaches the target share of its limit (`ceilingOf`), this is S2's
 * "one conversation at its ceiling".
 */
export const oneConversation: Scenario = {
  id: 'S2b',
  title: 'one conversation at its ceiling, on an ordered webhook',
  assumptions: `${MESSAGING_ASSUMPTIONS}; one project, channel, webhook (ordered) and contact`,
  mix: messagingMix(1, { unordered: 0, ordered: 1 }),
  spread: { project: 1, channel: 1, token: 1, integration: 1, webhook: 1, contact: 1, conversation: 1 },
};

/** The project-level ceilings the README states, each as a scenario at 1/s of its unit. */
export const ceilings: { name: string; unit: string; per: string; scenario: Scenario }[] = [
  {
    name: 'events per second, the whole deployment',
    unit: 'events/s',
    per: 'event',
    // S1's mix and spread at one event a second.
    scenario: {
      ...scenarios[0]!,
      id: 'service',
      mix: scenarios[0]!.mix.map((m) => ({ ...m, perSecond: m.perSecond / 10_000 })),
    },
  },
  {
    name: 'events per conversation per second on an ordered webhook',
    unit: 'events/s',
    per: 'event',
    scenario: oneConversation,
  },
  {
    name: 'deliveries per second per webhook',
    unit: 'deliveries/s',
    per: 'delivery',
    scenario: {
      id: 'webhook',
      title: 'one webhook, its project sending every event to it, over many conversations',
      assumptions: MESSAGING_ASSUMPTIONS,
      mix: messagingMix(1, { unordered: 1, ordered: 0 }),
      spread: { project: 1, channel: 1, token: 1, integration: 1, webhook: 1, contact: MANY, conversation: MANY },
    },
  },
  {
    name: 'sends per second per project',
    unit: 'sends/s',
    per: 'send',
    scenario: {
      id: 'sends',
      title: 'one project sending, each send fanned out to its 3 webhooks, over many conversations',
      assumptions: 'sends only, each one event delivered to 3 webhooks (one ordered)',
      mix: [
        { type: 'send', perSecond: 1 },
        { type: 'event fan-out', perSecond: 1 },
        { type: 'webhook delivery', perSecond: 2, spread: { webhook: 2 } },
        { type: 'ordered webhook delivery', perSecond: 1 },
      ],
      spread: { project: 1, channel: 1, token: 1, integration: 1, webhook: 1, contact: MANY, conversation: MANY },
    },
  },
  {
    name: 'scheduled sends per second, the whole deployment, all due in one minute',
    unit: 'sends/s',
    per: 'scheduled send',
    scenario: {
      id: 'scheduled',
      title: 'scheduled sends of many projects, all due in the same minute',
      assumptions: 'each accepted with its due entry, and sent at its time by the outbound worker',
      mix: [{ type: 'scheduled send', perSecond: 1 }],
      spread: { project: 1_000, channel: 1_000, token: 1_000, contact: MANY, conversation: MANY },
    },
  },
];

/** The scenario scaled by `factor` (every rate). */
export function scaled(scenario: Scenario, factor: number, id = scenario.id): Scenario {
  return { ...scenario, id, mix: scenario.mix.map((m) => ({ ...m, perSecond: m.perSecond * factor })) };
}
