import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localAws, type LocalAws, startFauxqsWithQueuesAndBuckets, type StandInSettings } from '#local/emulators.ts';
import { localAwsClients } from '#test/support/local-aws.ts';

/**
 * The runner's AWS stand-ins as the runner starts them (fauxqs with SQS, S3 and SNS, and STS, EventBridge, Kinesis and
 * SES beside it), persisted in a folder of their own, without DynamoDB: what these files test talks to them alone.
 */
export async function startStandIns(
  settings: StandInSettings = {},
  dir = mkdtempSync(join(tmpdir(), 'switchboard-aws-')),
) {
  const running = await startFauxqsWithQueuesAndBuckets(join(dir, 'fauxqs'), { ...settings, dir: join(dir, 'aws') });
  const info: LocalAws = localAws({
    region: 'us-east-1',
    dynamoEndpoint: 'http://127.0.0.1:9',
    awsEndpoint: running.awsEndpoint,
    standInEndpoints: running.standInEndpoints,
  });
  const clients = localAwsClients(info);
  return {
    info,
    dir,
    ...clients,
    /** Stops the stand-ins; their folder stays if `keep` (a restart on it). */
    async stop(keep = false) {
      clients.destroy();
      await running.stop();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type StandIns = Awaited<ReturnType<typeof startStandIns>>;
