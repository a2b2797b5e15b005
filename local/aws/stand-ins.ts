import type { DatabaseSync } from 'node:sqlite';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openStandInDatabase } from './database.ts';
import type { Outbox } from './outbox.ts';
import { listenStandIn, type StandInServer } from './wire.ts';

/** The AWS services the runner stands in for beyond DynamoDB, SQS, S3 and SNS, each on its own endpoint. */
export const STAND_IN_SERVICES = ['sts', 'eventbridge', 'kinesis', 'ses'] as const;
export type StandInName = (typeof STAND_IN_SERVICES)[number];

export interface AwsStandInsOptions {
  /** Where their state lives (a SQLite file in it); in memory if undefined. */
  dir?: string;
  region: string;
  /** Fixed ports on 127.0.0.1 (0 or absent: a free one). */
  ports?: Partial<Record<StandInName, number>>;
  /** SES also relays mail for addresses outside its mailbox simulator to this `smtp://` URL, if set. */
  sesRelaySmtpUrl?: string;
}

export interface AwsStandIns {
  endpoints: Record<StandInName, string>;
  /** The stand-ins' database (opened on first use): the SNS stand-in records what topics received in it too. */
  database(): Promise<DatabaseSync>;
  /** Starts sending what the stand-ins deliver to SQS and SNS (fauxqs, at `queuesAndTopics`). */
  connect(queuesAndTopics: string): void;
  stop(): Promise<void>;
}

/** Each service's own request limit, with room for base64 and JSON: SES's 40 MB message, PutRecords' 5 MiB. */
const MAX_BODY_BYTES: Record<StandInName, number> = {
  sts: 64 * 1024,
  eventbridge: 1024 * 1024,
  kinesis: 8 * 1024 * 1024,
  ses: 56 * 1024 * 1024,
};

const SIGNING_NAMES: Record<StandInName, string> = {
  sts: 'sts',
  eventbridge: 'events',
  kinesis: 'kinesis',
  ses: 'ses',
};

/**
 * STS, EventBridge, Kinesis and SES v2 on 127.0.0.1, each speaking its service's wire protocol so the AWS SDK's own
 * clients work against it (signatures are not verified). Only the listeners start here: a service's module, and the
 * database, load on its first request (the outbox also half a second after a restart, to send what the previous run left).
 */
export async function startAwsStandIns(options: AwsStandInsOptions): Promise<AwsStandIns> {
  let db: Promise<DatabaseSync> | undefined;
  const path = options.dir ? join(options.dir, 'stand-ins.sqlite') : undefined;
  const database = () => (db ??= openStandInDatabase(path));
  let outbox: Promise<Outbox> | undefined;
  let queuesAndTopics: string | undefined;
  const endpoints = {} as Record<StandInName, string>;
  const theOutbox = () =>
    (outbox ??= Promise.all([database(), import('./outbox.ts')]).then(([d, { createOutbox }]) => {
      const created = createOutbox(d, (delivery, reason) =>
        console.error(`[local aws] a delivery to ${describe(delivery)} was dropped: ${reason}`),
      );
      if (queuesAndTopics) created.start({ queuesAndTopics, eventBridge: endpoints.eventbridge });
      return created;
    }));
  const loaders: Record<StandInName, () => Promise<import('./wire.ts').StandInService>> = {
    sts: async () => (await import('./sts.ts')).createSts(await database()),
    eventbridge: async () =>
      (await import('./eventbridge.ts')).createEventBridge({
        db: await database(),
        outbox: await theOutbox(),
        region: options.region,
      }),
    kinesis: async () => (await import('./kinesis.ts')).createKinesis({ db: await database(), region: options.region }),
    ses: async () =>
      (await import('./ses.ts')).createSes({
        db: await database(),
        outbox: await theOutbox(),
        region: options.region,
        ...(options.sesRelaySmtpUrl ? { relaySmtpUrl: options.sesRelaySmtpUrl } : {}),
        onError: (error) => console.error('[local ses]', error),
      }),
  };
  const servers: StandInServer[] = [];
  try {
    for (const name of STAND_IN_SERVICES) {
      const server = await listenStandIn({
        signingName: SIGNING_NAMES[name],
        protocol: name === 'ses' ? 'rest-json' : name === 'sts' ? 'query' : 'json',
        port: options.ports?.[name] ?? 0,
        maxBodyBytes: MAX_BODY_BYTES[name],
        load: loaders[name],
      }).catch((error: Error & { code?: string }) => {
        // Named in the message: it crosses from the stand-ins' thread as text and a code.
        throw Object.assign(new Error(`the ${name} stand-in could not listen: ${error.message}`), { code: error.code });
      });
      servers.push(server);
      endpoints[name] = server.endpoint;
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
  return {
    endpoints,
    database,
    connect(at) {
      queuesAndTopics = at;
      // What a previous run accepted and did not send goes a moment after start-up, off its path (a first run has
      // no database, and nothing to send).
      if (path && existsSync(path))
        setTimeout(() => void theOutbox().catch((error: unknown) => console.error('[local aws]', error)), 500);
    },
    async stop() {
      (await outbox?.catch(() => undefined))?.stop();
      await Promise.all(servers.map((s) => s.stop()));
      (await db?.catch(() => undefined))?.close();
    },
  };
}

/** The setting that fixes a stand-in's port (`LOCAL_KINESIS_PORT`…). */
export const standInPortSetting = (name: StandInName) => `LOCAL_${name.toUpperCase()}_PORT`;

/** The stand-in a start-up failure names, if it is one's listen failure. */
export function standInOfFailure(error: unknown): StandInName | undefined {
  const name = /the (\w+) stand-in could not listen/.exec(error instanceof Error ? error.message : String(error))?.[1];
  return STAND_IN_SERVICES.find((s) => s === name);
}

function describe(delivery: import('./outbox.ts').Delivery): string {
  if (delivery.kind === 'sqs') return delivery.queueArn;
  if (delivery.kind === 'sns') return delivery.topicArn;
  return delivery.busArn;
}
