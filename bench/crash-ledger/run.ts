/** The crash ledger's run: traffic, kills and restarts, the drain, then the accounting. */
import { orderLedger } from '../lib/order-ledger.ts';
import { abandoned, duplicatesPerKill, ledgerRows, providerTwice } from './account.ts';
import { deliveriesIn, drain, keyOf, orderedArrivals } from './drain.ts';
import { startInputs } from './inputs.ts';
import { newTally, type Tally } from './tally.ts';
import { serviceQueues } from './queues.ts';
import { traceLost } from './trace.ts';
import type { Ledger, LedgerOptions } from './types.ts';
import { startWorld, type World } from './world.ts';

/**
 * Kills the service with SIGKILL `kills` times at random moments while the inputs flow, restarting it on the same
 * data each time; then lets the inputs in flight finish and stops them. Resolves to when each kill happened.
 */
async function killAndRestart(world: World, tally: Tally, loops: Promise<void>[]): Promise<number[]> {
  const { options } = world;
  const killedAt: number[] = [];
  for (let kill = 1; kill <= options.kills; kill++) {
    const wait = options.secondsBetweenKills * (0.5 + Math.random()) * 1000;
    await new Promise((r) => setTimeout(r, wait));
    world.service.process.child.kill('SIGKILL');
    killedAt.push(Date.now());
    await world.service.died();
    world.keepOutput(kill);
    world.log(
      `kill ${kill}: ${tally.expected.length} acknowledged so far, ${world.receiver.received.length} deliveries`,
    );
    world.service = await world.run.start(undefined, world.env);
    world.log(`restart ${kill}: ready`);
  }
  // Let the inputs in flight finish (acknowledged or not), then stop sending.
  await new Promise((r) => setTimeout(r, options.secondsBetweenKills * 1000));
  tally.stopping = true;
  await Promise.all(loops);
  world.log(`inputs stopped: ${tally.expected.length} acknowledged`);
  return killedAt;
}

export async function runCrashLedger(options: LedgerOptions): Promise<Ledger> {
  const world = await startWorld(options);
  const tally = newTally();
  const killedAt = await killAndRestart(world, tally, startInputs(world, tally, options));
  const drained = await drain(world, tally);
  const { receiver, orderedReceiver, twilioApi } = world;
  const beforeRecovery = new Set(
    [
      ...receiver.received.slice(0, drained.recoveredFrom),
      ...drained.fromQueue.slice(0, drained.recoveredFromQueue),
    ].flatMap((r) => keyOf(r.json)),
  );
  const received = [...receiver.received, ...drained.fromQueue];
  const { rows, lostKeys, twoIdKeys } = ledgerRows(tally.expected, received, beforeRecovery);
  // Deliveries still waiting for an automatic attempt when the drain stopped (each one an event not yet at the webhook).
  const pendingDeliveries = (await deliveriesIn(world, 'pending')).length;
  const deadLetters = await serviceQueues(world.localAws).then(
    (q) => q.dead,
    () => drained.deadLetters,
  );
  world.keepOutput('last');
  const lostTrace = await traceLost(world.localAws, lostKeys).catch((error: unknown) => [
    `tracing the lost inputs: ${String(error)}`,
  ]);
  if (options.keep) {
    await world.service.stop();
    world.log(`data and service output kept in ${world.run.dataDir}`);
  } else await world.run.cleanUp();
  const order = orderLedger(tally.orderedInputs, orderedArrivals(world));
  await receiver.close();
  await orderedReceiver.close();
  const ledger: Ledger = {
    providerTwice: providerTwice(twilioApi.requests, receiver.received),
    abandoned: abandoned(receiver.received),
    rows,
    kills: options.kills,
    duplicatesPerKill: duplicatesPerKill(received, killedAt),
    lostKeys,
    twoIdKeys,
    pendingDeliveries,
    failedDeliveries: drained.failedDeliveries,
    deadLetters,
    order,
    serviceWarnings: world.warnings,
    lostTrace,
    runLog: world.runLog,
  };
  await twilioApi.close();
  return ledger;
}
