// The fault of each scenario, injected a third of the way into the load (docs/faults.md): a
// process killed or stopped, the merchant down, the broker or PostgreSQL crashed or stopped, every
// service restarted in turn, the gateway's reply topic deleted, requests left unanswered, one of
// each pair killed. Resolves once the fault is over (what it stopped runs, or is ready, again).
import { deleteTopics, gatewayReplyTopics } from './services.mjs';
import { REPLYING } from './scenarios.mjs';

/** How long the crashed broker or PostgreSQL stays down before it is started again. */
export const OUTAGE_MS = Number(process.env.FAULTS_OUTAGE_MS ?? 3000);
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {{ sc: import('./scenarios.mjs').Scenario,
 *   procs: Awaited<ReturnType<typeof import('./processes.mjs').scenarioProcesses>>,
 *   receiver: Awaited<ReturnType<typeof import('./merchant.mjs').startReceiver>>,
 *   ownKafka?: Awaited<ReturnType<typeof import('./own-infra.mjs').startOwnKafka>>,
 *   ownPostgres?: Awaited<ReturnType<typeof import('./own-infra.mjs').startOwnPostgres>>,
 *   brokers: string, prefix: string, paused: Set<import('./processes.mjs').Instance>,
 *   inFlight: () => number, faultAt: number, log: (...args: any[]) => void }} o
 */
export async function injectFault({
  sc,
  procs,
  receiver,
  ownKafka,
  ownPostgres,
  brokers,
  prefix,
  paused,
  inFlight,
  faultAt,
  log,
}) {
  const { the, start, stop, ready, running } = procs;
  if (sc.kill) {
    await stop(sc.kill, /** @type {NodeJS.Signals} */ (sc.signal));
    start(sc.kill);
  } else if (sc.merchant) {
    receiver.state.mode = 'down';
    await sleep(5000);
    receiver.state.mode = 'slow';
    await sleep(5000);
    receiver.state.mode = 'ok';
  } else if (sc.crashKafka || sc.crashPostgres) {
    const own = /** @type {{ crash(): Promise<void>, restart(): Promise<void> }} */ (ownKafka ?? ownPostgres);
    await own.crash();
    await sleep(OUTAGE_MS);
    await own.restart();
    log(`  ${sc.crashKafka ? 'broker' : 'PostgreSQL'} back after ${((Date.now() - faultAt) / 1000).toFixed(1)} s`);
  } else if (sc.restartKafka) {
    const own = /** @type {NonNullable<typeof ownKafka>} */ (ownKafka);
    await own.shutdown();
    const down = Date.now();
    log(`  broker stopped (SIGTERM) in ${((down - faultAt) / 1000).toFixed(1)} s; down for ${OUTAGE_MS} ms`);
    await sleep(OUTAGE_MS);
    await own.restart();
    log(`  broker back after ${((Date.now() - faultAt) / 1000).toFixed(1)} s`);
  } else if (sc.rolling) {
    for (const inst of running()) {
      const t = Date.now();
      await stop(inst.key, 'SIGTERM');
      const stopped = Date.now();
      // stopChild's SIGKILL after 10 s: the process did not finish its shutdown.
      const how = inst.child?.signalCode === 'SIGKILL' ? 'still running 10 s after SIGTERM, SIGKILLed' : 'exited';
      start(inst.key);
      await ready(inst.key);
      log(
        `  ${inst.key}: SIGTERM, ${how} after ${((stopped - t) / 1000).toFixed(1)} s; ready again as ${inst.instanceId} after ${((Date.now() - stopped) / 1000).toFixed(1)} s`,
      );
    }
  } else if (sc.replyTopicDeleted) {
    const old = the('gateway');
    const topics = await gatewayReplyTopics(brokers, prefix, /** @type {string} */ (old.instanceId));
    if (!topics.length) throw new Error(`no reply topic of the gateway (${old.instanceId}) to delete`);
    const caught = inFlight();
    await deleteTopics(brokers, topics);
    log(`  deleted ${topics.join(', ')} with ${caught} request(s) in flight`);
    start('gateway#2');
    await ready('gateway#2');
    // The merchants' requests go to the new instance from now on; the old one is stopped.
    old.retired = true;
    await stop('gateway', 'SIGTERM');
    log(
      `  gateway#2 (${the('gateway#2').instanceId}) ready and taking the load ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the deletion; the first gateway stopped`,
    );
  } else if (sc.unanswered) {
    // The replying services stop (SIGSTOP) for a moment: the gateway's requests to them wait unanswered.
    for (const name of REPLYING) {
      the(name).child?.kill('SIGSTOP');
      paused.add(the(name));
    }
    await sleep(1500);
    const caught = inFlight();
    await stop('gateway', 'SIGKILL');
    for (const inst of paused) inst.child?.kill('SIGCONT');
    paused.clear();
    log(`  gateway SIGKILLed with ${caught} request(s) unanswered (${REPLYING.join(', ')} paused 1.5 s)`);
    start('gateway');
    await ready('gateway');
    log(
      `  gateway ready again as ${the('gateway').instanceId} ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the kill`,
    );
  } else if (sc.pairs) {
    const victims = running().filter((i) => i.index === 1);
    await Promise.all(victims.map((v) => stop(v.key, 'SIGKILL')));
    log(`  SIGKILLed ${victims.map((v) => v.key).join(', ')}; starting them again`);
    for (const v of victims) start(v.key);
    await Promise.all(victims.map((v) => ready(v.key)));
    log(`  all back and ready ${((Date.now() - faultAt) / 1000).toFixed(1)} s after the kill`);
  }
}
