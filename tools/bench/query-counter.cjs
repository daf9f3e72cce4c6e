/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload, loaded with node -r */
// A query counter for `npm run bench`, preloaded into every service (`node -r …/query-counter.cjs`):
// counts the statements each process sends to PostgreSQL through node-postgres (every
// Client.query, pooled or not) and the transactions they make — explicit ones (BEGIN / START
// TRANSACTION … COMMIT / ROLLBACK) and single statements outside one (each its own transaction).
// It answers its totals so far, as one line of JSON, to whoever connects to the Unix socket
// $BENCH_QUERY_COUNTER_SOCKET (no signal: NestJS's shutdown hooks take SIGUSR2, SIGHUP…). Totals
// only: the bench subtracts two answers to get a phase's figures.
// With $BENCH_QUERY_LOG set (a file), it also appends every statement's text to that file, one line
// each, with the connection and whether it ran inside an explicit transaction — the text only,
// never the parameters (they may hold a shop's secrets), to see what a service really sends.
'use strict';
const fs = require('node:fs');
const net = require('node:net');

const socket = process.env.BENCH_QUERY_COUNTER_SOCKET;
const counts = { statements: 0, explicit: 0, implicit: 0 };
const IN_TX = Symbol('bench.inTransaction');
const CLIENT_NO = Symbol('bench.clientNumber');
let clients = 0;
const logFile = process.env.BENCH_QUERY_LOG;
/** Buffered: a service stopped with SIGTERM may lose its last lines, which a look at shapes can spare. */
const logStream = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;

function textOf(config) {
  if (typeof config === 'string') return config;
  if (config && typeof config.text === 'string') return config.text;
  return '';
}

function count(client, config) {
  counts.statements += 1;
  const text = textOf(config);
  const head = /^\s*(\w+)(?:\s+(\w+))?/.exec(text);
  const verb = head ? head[1].toUpperCase() : '';
  if (verb === 'BEGIN' || (verb === 'START' && head[2] && head[2].toUpperCase() === 'TRANSACTION')) {
    if (!client[IN_TX]) counts.explicit += 1;
    client[IN_TX] = true;
  } else if (verb === 'COMMIT' || verb === 'ROLLBACK' || verb === 'END' || verb === 'ABORT') {
    // ROLLBACK TO SAVEPOINT keeps the transaction open.
    if (!(verb === 'ROLLBACK' && head[2] && head[2].toUpperCase() === 'TO')) client[IN_TX] = false;
  } else if (!client[IN_TX]) {
    counts.implicit += 1;
  }
  // Several statements in one query (the outbox relay's mark and COMMIT, decision 205) end the
  // transaction they close: otherwise the relay's next `BEGIN; …` would not count as a new one.
  if (client[IN_TX] && /;\s*(COMMIT|END|ROLLBACK|ABORT)\s*;?\s*$/i.test(text)) client[IN_TX] = false;
  if (logStream) {
    if (client[CLIENT_NO] === undefined) client[CLIENT_NO] = ++clients;
    const where =
      client[IN_TX] || verb === 'COMMIT' || verb === 'ROLLBACK' || /;\s*COMMIT\s*;?\s*$/i.test(text) ? 'tx' : '--';
    logStream.write(`${client[CLIENT_NO]}\t${where}\t${text.replace(/\s+/g, ' ').trim()}\n`);
  }
}

function patch(pg) {
  const proto = pg && pg.Client && pg.Client.prototype;
  if (!proto || proto.query.benchCounted) return;
  const original = proto.query;
  const counted = function (config, ...rest) {
    count(this, config);
    return original.call(this, config, ...rest);
  };
  counted.benchCounted = true;
  proto.query = counted;
}

/** Listens on the socket, without keeping the process alive; the socket goes with the process. */
function listen() {
  if (!socket) return;
  fs.rmSync(socket, { force: true });
  const server = net.createServer((c) => {
    c.end(
      JSON.stringify({
        pid: process.pid,
        statements: counts.statements,
        transactions: counts.explicit + counts.implicit,
        explicitTransactions: counts.explicit,
      }) + '\n',
    );
  });
  server.on('error', () => undefined); // the bench reports the figure as missing
  server.listen(socket);
  server.unref();
}

// pg is resolved as the service resolves it (from the working directory, the repository root).
try {
  patch(require(require.resolve('pg', { paths: [process.cwd()] })));
} catch {
  /* a process without pg: nothing to count */
}
listen();
