// A closed-loop HTTP load generator: `concurrency` workers, each sending its next request as soon
// as the previous one is answered, over keep-alive connections. Node builtins only.
import http from 'node:http';

/** Latencies in microseconds, kept whole: a run is at most a few hundred thousand requests. */
export class Latencies {
  values = [];
  add(us) {
    this.values.push(us);
  }
  percentile(p) {
    if (this.values.length === 0) return NaN;
    const sorted = Float64Array.from(this.values).sort();
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[i] / 1000; // ms
  }
}

/**
 * @param {http.Agent} agent
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: unknown }} [spec]
 * @returns {Promise<{ status: number, body: string }>}
 */
export function request(agent, url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/**
 * Runs `makeRequest(i)` (→ { url, method, headers, body, onDone(res, doneAt) }) from `concurrency`
 * workers for `seconds`, or until `makeRequest` returns null. Counts 2xx answers, other answers and
 * errors, and the latency of every 2xx.
 */
export async function runClosedLoop({ concurrency, seconds, makeRequest }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = new Latencies();
  const counts = { ok: 0, other: 0, errors: 0 };
  const otherSamples = [];
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  let next = 0;
  async function worker() {
    for (;;) {
      if (process.hrtime.bigint() >= deadline) return;
      const spec = makeRequest(next++);
      if (!spec) return;
      const t0 = process.hrtime.bigint();
      try {
        const res = await request(agent, spec.url, spec);
        const t1 = process.hrtime.bigint();
        if (res.status >= 200 && res.status < 300) {
          counts.ok += 1;
          latencies.add(Number(t1 - t0) / 1000);
          spec.onDone?.(res, t1);
        } else {
          counts.other += 1;
          if (otherSamples.length < 3) otherSamples.push(`${res.status} ${res.body.slice(0, 200)}`);
        }
      } catch (err) {
        counts.errors += 1;
        if (otherSamples.length < 3) otherSamples.push(String(/** @type {Error} */ (err)?.message ?? err));
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return {
    ...counts,
    elapsed,
    perSecond: counts.ok / elapsed,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    otherSamples,
  };
}
