// What one message between two processes costs on this machine, with no work around it: the CPU
// of a round trip over loopback TCP between two Node processes (the shape of an HTTP exchange, a
// Kafka produce or fetch), and of a statement round trip between node-postgres and its backend
// (`SELECT 1`, prepared once). The bench prices an order's life's statements and other write calls
// with them: an estimate of what its messages cost, before anything is parsed, stored or decided.
//
//   node tools/bench/round-trip.mjs [DATABASE_URL]   prints both (the second only with a URL)
import { fork } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cpuSnapshot } from './cpu.mjs';

const MESSAGE_BYTES = 300;

function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The echo side: answers every chunk it reads, and its own CPU when asked. */
function echoServer() {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => socket.write(chunk));
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: /** @type {net.AddressInfo} */ (server.address()).port }));
  process.on('message', (m) => {
    if (m === 'cpu') process.send?.({ cpuMs: cpuMs() });
  });
  // The parent gone (done, failed, interrupted): nothing to answer any more.
  process.on('disconnect', () => process.exit(0));
}

/** Rejects after `ms` with what was being waited for. */
function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`round trip: ${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One at a time, as a request waits for its answer: `count` round trips; µs of CPU per round trip, each side. */
export async function nodeRoundTrip(count = 20_000) {
  const child = fork(fileURLToPath(import.meta.url), ['--echo'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`round trip: the echo process ended (${signal ?? code})`))),
  );
  exited.catch(() => undefined);
  child.on('error', () => undefined);
  const ask = (msg) =>
    within(
      10_000,
      'the echo process',
      Promise.race([
        exited,
        new Promise((resolve) => {
          child.once('message', resolve);
          if (msg) child.send(msg);
        }),
      ]),
    );
  /** @type {net.Socket | undefined} */
  let socket;
  try {
    const { port } = /** @type {{ port: number }} */ (await ask());
    socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const connecting = socket;
    await new Promise((r, j) => connecting.once('connect', r).once('error', j));
    socket.on('error', () => undefined); // the child killed mid-run; the run's timeout says so
    const message = Buffer.alloc(MESSAGE_BYTES, 0x61);
    const connected = socket;
    const run = (n) =>
      new Promise((resolve) => {
        let left = n;
        let pending = MESSAGE_BYTES;
        connected.on('data', function onData(chunk) {
          pending -= chunk.length;
          if (pending > 0) return;
          pending = MESSAGE_BYTES;
          if (--left > 0) connected.write(message);
          else {
            connected.off('data', onData);
            resolve(undefined);
          }
        });
        connected.write(message);
      });
    await within(60_000, 'the warm-up', run(1000)); // warm both sides up
    const server0 = /** @type {{ cpuMs: number }} */ (await ask('cpu')).cpuMs;
    const client0 = cpuMs();
    const t0 = performance.now();
    await within(120_000, `${count} round trips`, run(count));
    const wallMs = performance.now() - t0;
    const clientMs = cpuMs() - client0;
    const serverMs = /** @type {{ cpuMs: number }} */ (await ask('cpu')).cpuMs - server0;
    return {
      count,
      clientUs: (clientMs * 1000) / count,
      serverUs: (serverMs * 1000) / count,
      wallUs: (wallMs * 1000) / count,
    };
  } finally {
    socket?.destroy();
    child.kill();
  }
}

/** `SELECT 1` as a prepared statement, one at a time: µs of CPU per round trip for node-postgres and for its backend. */
export async function postgresRoundTrip(databaseUrl, count = 10_000) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    const backend = Number(rows[0].pid);
    const query = { name: 'round-trip', text: 'SELECT 1' };
    for (let i = 0; i < 500; i++) await client.query(query);
    const backendMs = () => cpuSnapshot([['backend', backend]]).backend;
    const b0 = backendMs();
    const c0 = cpuMs();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) await client.query(query);
    const wallMs = performance.now() - t0;
    return {
      count,
      clientUs: ((cpuMs() - c0) * 1000) / count,
      serverUs: ((backendMs() - b0) * 1000) / count,
      wallUs: (wallMs * 1000) / count,
    };
  } finally {
    await client.end();
  }
}

/** Both, for the bench's report (`databaseUrl` optional). */
export async function roundTrips(databaseUrl) {
  const node = await nodeRoundTrip();
  const postgres = databaseUrl ? await postgresRoundTrip(databaseUrl) : undefined;
  return { node, postgres };
}

const f1 = (n) => n.toFixed(1);
export function roundTripLine({ node, postgres }) {
  const parts = [
    `Node ↔ Node over loopback TCP (${MESSAGE_BYTES}-byte messages, one at a time): ${f1(node.clientUs + node.serverUs)} µs of CPU per round trip (${f1(node.clientUs)} + ${f1(node.serverUs)}), ${f1(node.wallUs)} µs apart`,
  ];
  if (postgres)
    parts.push(
      `node-postgres ↔ its backend (a prepared \`SELECT 1\`): ${f1(postgres.clientUs + postgres.serverUs)} µs (${f1(postgres.clientUs)} + ${f1(postgres.serverUs)}), ${f1(postgres.wallUs)} µs apart`,
    );
  return parts.join('; ');
}

if (process.argv.includes('--echo')) echoServer();
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await roundTrips(process.argv[2]);
  console.log(roundTripLine(result));
}
