// Statements and transactions per service, from the query counter preloaded into every service
// (tools/bench/query-counter.cjs), which answers its totals on a Unix socket of its own.
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const QUERY_COUNTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'query-counter.cjs');

/** The query counter's socket of one service (short: a Unix socket path has at most 107 bytes). */
export const queryCounterSocket = (dir, name) => path.join(dir, `${name}.sock`);

/** A directory for the sockets, without those of an earlier run. */
export function resetQueryCounters(dir, names) {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    rmSync(queryCounterSocket(dir, name), { force: true });
    rmSync(path.join(dir, `${name}.sql`), { force: true });
  }
}

/** @returns {Promise<{ pid: number, statements: number, transactions: number } | undefined>} */
function ask(socket, timeoutMs) {
  return new Promise((resolve) => {
    let data = '';
    const c = net.connect(socket);
    const timer = setTimeout(() => c.destroy(), timeoutMs);
    c.setEncoding('utf8');
    c.on('data', (d) => (data += d));
    c.on('error', () => undefined);
    c.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(data));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/**
 * Totals so far of each running service: { name: { statements, transactions } }. A service that
 * does not answer within `timeoutMs` is left out (its figure shows as missing).
 * @param {Map<string, import('node:child_process').ChildProcess>} children
 */
export async function queryCounts(children, dir, timeoutMs = 3000) {
  /** @type {Record<string, { statements: number, transactions: number }>} */
  const out = {};
  await Promise.all(
    [...children].map(async ([name, child]) => {
      const answer = await ask(queryCounterSocket(dir, name), timeoutMs);
      if (answer && answer.pid === child.pid)
        out[name] = { statements: answer.statements, transactions: answer.transactions };
    }),
  );
  return out;
}

/** What each service ran between two `queryCounts`, per unit of work (an order's life). */
export function queriesPer(before, after, units) {
  /** @type {Record<string, { statements: number, transactions: number }>} */
  const out = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name];
    if (!b) continue;
    out[name] = {
      statements: units > 0 ? (a.statements - b.statements) / units : NaN,
      transactions: units > 0 ? (a.transactions - b.transactions) / units : NaN,
    };
  }
  return out;
}

/** Sums of a `queriesPer` over the services. */
export function queriesTotal(per) {
  let statements = 0;
  let transactions = 0;
  for (const v of Object.values(per)) {
    statements += v.statements;
    transactions += v.transactions;
  }
  return { statements, transactions };
}
