import { buckets, type BucketKey } from '#shared/contract/buckets.ts';
import { queues, queueUrlEnv, type QueueKey } from '#shared/contract/queues.ts';

/** Where the runner's AWS stand-ins answer, and the names of what they hold (./emulators.ts gives the real ones). */
export interface StandInNames {
  region: string;
  tableName: string;
  dynamoEndpoint: string;
  awsEndpoint: string;
  standInEndpoints: Record<'sts' | 'eventbridge' | 'kinesis' | 'ses', string>;
  bucketNames: Record<BucketKey, string>;
  queueUrls: Record<QueueKey, string>;
}

/** The SES configuration set the runner creates in its SES stand-in; channels send in it unless they name their own. */
export const LOCAL_SES_CONFIGURATION_SET = 'switchboard';

/**
 * What the deployment sets for each function, pointed at the stand-ins: the runner always sets these itself, over
 * whatever the caller's environment says (./service.ts).
 */
export function functionWiring(
  names: StandInNames,
  keys: { adminKey: string; secretsKey: string },
): Record<string, string> {
  return {
    SWITCHBOARD_RUNTIME: 'local',
    AWS_REGION: names.region,
    TABLE_NAME: names.tableName,
    DYNAMODB_ENDPOINT: names.dynamoEndpoint,
    SQS_ENDPOINT: names.awsEndpoint,
    S3_ENDPOINT: names.awsEndpoint,
    SNS_ENDPOINT: names.awsEndpoint,
    STS_ENDPOINT: names.standInEndpoints.sts,
    EVENTBRIDGE_ENDPOINT: names.standInEndpoints.eventbridge,
    KINESIS_ENDPOINT: names.standInEndpoints.kinesis,
    SES_ENDPOINT: names.standInEndpoints.ses,
    SES_CONFIGURATION_SET: LOCAL_SES_CONFIGURATION_SET,
    ADMIN_KEY: keys.adminKey,
    SECRETS_KEY: keys.secretsKey,
    ...Object.fromEntries(Object.values(buckets).map((b) => [b.envVar, names.bucketNames[b.key]])),
    ...Object.fromEntries(
      (Object.keys(names.queueUrls) as QueueKey[]).map((k) => [queueUrlEnv(k), names.queueUrls[k]]),
    ),
  };
}

/**
 * The environment the functions will see, as far as it is known before anything starts: the caller's settings, with
 * stand-in addresses and keys of the right shape where the runner sets its own (their real values are only known
 * once the stand-ins listen). Checking it refuses a bad setting the user gave before the start, with the message
 * the functions' cold start would give seconds later.
 */
export function environmentBeforeStart(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const endpoint = 'http://127.0.0.1:1';
  const byKey = <K extends string>(keys: readonly K[], value: (key: K) => string) =>
    Object.fromEntries(keys.map((k) => [k, value(k)])) as Record<K, string>;
  const names: StandInNames = {
    region: 'us-east-1',
    tableName: 'switchboard',
    dynamoEndpoint: endpoint,
    awsEndpoint: endpoint,
    standInEndpoints: byKey(['sts', 'eventbridge', 'kinesis', 'ses'], () => endpoint),
    bucketNames: byKey(Object.keys(buckets) as BucketKey[], (key) => `switchboard-${key}`),
    queueUrls: byKey(Object.keys(queues) as QueueKey[], (key) => `${endpoint}/000000000000/${key}`),
  };
  const wiring = functionWiring(names, {
    // The runner generates these unless the caller gives them; the caller's own are checked as given.
    adminKey: env.ADMIN_KEY ?? `sba_${'0'.repeat(43)}`,
    secretsKey: env.SECRETS_KEY ?? 'A'.repeat(43).concat('='),
  });
  const given = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return { ...given, ...wiring };
}
