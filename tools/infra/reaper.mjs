// @ts-check
// The watchdog of one run (started by startRun in process.mjs, never by hand): it holds the pids
// the run owns (services, a broker, an embedded PostgreSQL) and, when the run's IPC channel closes
// while it still owns some — the run died without cleaning up: SIGKILL, a crash, an OOM kill — it
// stops them: the asked signal, SIGKILL after 10 s. It runs in a session of its own, so the
// terminal's ^C reaches only the run, which stops things in order itself.
//
//   node tools/infra/reaper.mjs <parent pid>     (messages: { own, group, signal } | { disown } | { standDown })

/** @type {Map<number, { group: boolean, signal: NodeJS.Signals }>} */
const owned = new Map();
const parent = Number(process.argv[2]);

const send = (/** @type {number} */ pid, /** @type {NodeJS.Signals | 0} */ sig) => {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
};

for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGHUP'])) process.on(sig, () => {});
// The run's stderr (a terminal, a pipe) may be gone with the run: a failed write must not stop us.
process.stderr.on('error', () => {});

process.on('message', (/** @type {any} */ msg) => {
  if (msg?.standDown) process.exit(0); // the run stopped everything itself
  if (msg?.own) owned.set(msg.own, { group: Boolean(msg.group), signal: msg.signal ?? 'SIGTERM' });
  if (msg?.disown) owned.delete(msg.disown);
});

let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  const targets = [...owned].map(([pid, o]) => ({ target: o.group ? -pid : pid, signal: o.signal }));
  if (targets.length === 0) process.exit(0);
  process.stderr.write(
    `[watchdog] run ${parent} ended without stopping pid(s) ${[...owned.keys()].join(', ')}: stopping them\n`,
  );
  for (const t of targets) send(t.target, t.signal);
  const deadline = Date.now() + 10_000;
  setInterval(() => {
    const alive = targets.filter((t) => send(t.target, 0));
    if (alive.length === 0) process.exit(0);
    if (Date.now() > deadline) {
      for (const t of alive) send(t.target, 'SIGKILL');
      process.exit(0);
    }
  }, 200);
}

process.on('disconnect', reap);
// Belt and braces: should the channel never have opened, watch the parent's pid.
setInterval(() => {
  if (!send(parent, 0)) reap();
}, 1000).unref();
// The channel alone keeps this process alive: once it closes, reap() decides.
