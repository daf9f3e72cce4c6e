// The processes of one fault scenario: one of every service (two in j, a standby gateway in
// i-reply-topic), each on ports of its own; started with a new instance id each time, stopped,
// waited for until ready, and found for the load (the running gateways and ingests).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startService } from '../stack/common.mjs';
import { instanceEnv } from '../stack/system.mjs';
import { stopChild } from '../infra/process.mjs';
import { stablePort } from './own-infra.mjs';
import { SENDING } from './scenarios.mjs';
import { waitReady } from './services.mjs';

/**
 * One process of a service: `orders`, or `orders#2` for the second of a pair (j), `gateway#2` for
 * the instance that takes over in i-reply-topic. A start gives it a new instance id.
 * @typedef {{ key: string, name: string, variable: string, index: number, port: number,
 *   child?: import('node:child_process').ChildProcess & { logFile?: string }, instanceId?: string,
 *   starts: number, standby?: boolean, retired?: boolean }} Instance
 */

/**
 * @param {{ sc: import('./scenarios.mjs').Scenario, services: string[][],
 *   logDir: string, run: ReturnType<typeof import('../infra/process.mjs').startRun> }} o
 */
export async function scenarioProcesses({ sc, services, logDir, run }) {
  /** @type {Map<string, Instance>} */
  const instances = new Map();
  const copies = sc.pairs ? 2 : 1;
  for (const [name, variable] of services)
    for (let index = 1; index <= copies; index++) {
      const key = index === 1 ? name : `${name}#${index}`;
      instances.set(key, { key, name, variable, index, port: 0, starts: 0 });
    }
  // i-reply-topic: the gateway instance that takes over once the first one's reply topic is gone.
  if (sc.replyTopicDeleted)
    instances.set('gateway#2', {
      key: 'gateway#2',
      name: 'gateway',
      variable: 'GATEWAY_HTTP_PORT',
      index: 2,
      port: 0,
      starts: 0,
      standby: true,
    });
  // Outside the ephemeral range, as the own broker's: a port the system handed out and took back
  // (freePort) was once taken by some client's socket before the gateway bound it (EADDRINUSE, e).
  /** @type {number[]} */
  const taken = [];
  for (const inst of instances.values()) {
    inst.port = await stablePort(taken);
    taken.push(inst.port);
  }
  const the = (/** @type {string} */ key) => /** @type {Instance} */ (instances.get(key));
  const base = (/** @type {Instance} */ inst) => `http://127.0.0.1:${inst.port}`;
  /** What every process gets (set once the database and topics exist). */
  /** @type {Record<string, string>} */
  let env = {};

  /** What one process gets besides `env`: its own ports, sandbox and ingest of the same index, a new instance id. */
  const envOf = (/** @type {Instance} */ inst) => {
    const peer = (/** @type {string} */ name) =>
      instances.get(inst.index === 1 ? name : `${name}#${inst.index}`) ?? the(name);
    return {
      [inst.variable]: String(inst.port),
      ...(SENDING.includes(inst.name) ? { SANDBOX_PROVIDER_URL: base(peer('provider-sandbox')) } : {}),
      ...(inst.name === 'provider-sandbox'
        ? { SANDBOX_CALLBACKS_URL: `${base(peer('callbacks-ingest'))}/callbacks/sandbox` }
        : {}),
      ...(inst.name === 'checkout' ? { CHECKOUT_PUBLIC_URL: base(inst) } : {}),
      // New on every start, as a new pod's: `<service>-<index>-<start>-<random>`.
      ...instanceEnv(`${inst.name}-${inst.index}-${inst.starts}-${randomBytes(3).toString('hex')}`),
    };
  };
  const start = (/** @type {string} */ key, extraEnv = {}) => {
    if (run.finishing) throw new Error('interrupted');
    const inst = the(key);
    inst.starts += 1;
    inst.standby = false;
    const own = envOf(inst);
    inst.instanceId = own.INSTANCE_ID;
    const logFile = path.join(logDir, `${sc.id}-${key.replace('#', '-')}-${Date.now()}.log`);
    const child = /** @type {import('node:child_process').ChildProcess & { logFile?: string }} */ (
      startService(inst.name, { ...env, ...own, ...extraEnv }, { logFile })
    );
    if (!child) throw new Error(`${inst.name} is not built (dist/apps/${inst.name})`);
    child.logFile = logFile;
    run.own(child.pid);
    child.once('exit', () => run.disown(child.pid));
    inst.child = child;
    return child;
  };
  const stop = async (/** @type {string} */ key, /** @type {NodeJS.Signals} */ sig) => {
    const c = the(key).child;
    if (c) await stopChild(c, sig);
  };
  /**
   * Ready: its HTTP port's readiness answers 200, within 180 s: j starts twenty-two processes at
   * once, and on the shared 2-core machine the last of them once took 92 s to boot.
   */
  const ready = async (/** @type {string} */ key) => {
    const inst = the(key);
    const opts = { child: inst.child, label: key, timeoutMs: 180_000 };
    await waitReady(base(inst), opts);
  };
  const running = () => [...instances.values()].filter((i) => !i.standby && !i.retired);
  /** @returns {import('./client.mjs').Endpoint[]} every listener of the running processes */
  const endpoints = () => running().map((i) => ({ label: i.key, base: base(i) }));
  // Where the merchant and the provider send: spread over the running gateways and ingests.
  const spread = (/** @type {string} */ name, /** @type {string} */ suffix) => {
    let n = 0;
    return () => {
      const live = running().filter((i) => i.name === name);
      return base(live[n++ % live.length]) + suffix;
    };
  };
  /** Stops every process (however the scenario ends). */
  const stopAll = () => Promise.all([...instances.values()].map((i) => (i.child ? stopChild(i.child) : undefined)));
  return {
    instances,
    the,
    base,
    setEnv: (/** @type {Record<string, string>} */ e) => void (env = e),
    start,
    stop,
    ready,
    running,
    endpoints,
    spread,
    stopAll,
  };
}
