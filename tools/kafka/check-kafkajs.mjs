#!/usr/bin/env node
// Smoke check: does the project's kafkajs work against the local broker?
//   node tools/kafka/check-kafkajs.mjs            # uses ensureKafka() (starts the broker if needed)
//   KAFKA_BROKERS=host:port node tools/kafka/check-kafkajs.mjs
// Exercises: admin.createTopics, idempotent producer (maxInFlightRequests 1), consumer group join,
// offset commit, admin.fetchTopicOffsets / fetchOffsets / describeGroups / deleteTopics, and a
// transactional producer. Prints timings; exits non-zero on the first failure.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKafka, ensureTopics, DEFAULT_ROOT_DIR } from '../infra/kafka.mjs';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const require = createRequire(path.join(DEFAULT_ROOT_DIR, 'package.json'));
const { Kafka, logLevel } = require('kafkajs');
const kafkajsVersion = require('kafkajs/package.json').version;

const results = [];
async function step(name, fn) {
  const t0 = Date.now();
  try {
    const v = await fn();
    const ms = Date.now() - t0;
    results.push({ name, ok: true, ms });
    console.log(`ok   ${name} (${ms} ms)${v !== undefined ? ` ${typeof v === 'string' ? v : JSON.stringify(v)}` : ''}`);
    return v;
  } catch (e) {
    results.push({ name, ok: false, ms: Date.now() - t0 });
    console.log(`FAIL ${name}: ${/** @type {Error} */ (e)?.stack || e}`);
    throw e;
  }
}

/** @param {{ log?: (msg: string) => void }} [opts] */
export async function checkKafkajs({ log } = {}) {
  const { brokers } = await ensureKafka({ log });
  const kafka = new Kafka({ clientId: 'kafkajs-check', brokers: brokers.split(','), logLevel: logLevel.WARN });
  const admin = kafka.admin();
  const suffix = randomBytes(4).toString('hex');
  const topic = `check.kafkajs.${suffix}`;
  const topic2 = `check.kafkajs.ensure.${suffix}`;
  const groupId = `check-group-${suffix}`;
  const N = 50;
  console.log(`kafkajs ${kafkajsVersion} against ${brokers}`);

  await admin.connect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  // maxWaitTimeInMs: kafkajs' default fetch long-poll is 5 s, and disconnect() waits for it
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: 10000,
    heartbeatInterval: 1000,
    rebalanceTimeout: 10000,
    maxWaitTimeInMs: Number(process.env.CHECK_MAX_WAIT_MS ?? 250),
  });
  const txProducer = kafka.producer({
    transactionalId: `check-tx-${suffix}`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  try {
    await step('admin.describeCluster', async () => {
      const c = await admin.describeCluster();
      assert.equal(c.brokers.length, 1);
      return { controller: c.controller, brokers: c.brokers.map((b) => `${b.host}:${b.port}`) };
    });
    await step('admin.createTopics (3 partitions)', async () => {
      const created = await admin.createTopics({
        topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
        waitForLeaders: true,
      });
      assert.equal(created, true);
    });
    await step('admin.createTopics again returns false', async () => {
      // separate silent client: kafkajs logs the (expected) TOPIC_ALREADY_EXISTS response at ERROR
      const quiet = new Kafka({
        clientId: 'kafkajs-check-quiet',
        brokers: brokers.split(','),
        logLevel: logLevel.NOTHING,
      }).admin();
      await quiet.connect();
      try {
        assert.equal(await quiet.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }] }), false);
      } finally {
        await quiet.disconnect();
      }
    });
    await step('ensureTopics creates + is idempotent', async () => {
      const spec = [
        { topic, numPartitions: 3 },
        { topic: topic2, numPartitions: 2, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
      ];
      const first = await ensureTopics(brokers, spec, { log: () => {} });
      const second = await ensureTopics(brokers, spec, { log: () => {} });
      assert.deepEqual(first, [topic2]);
      assert.deepEqual(second, []);
    });

    await step('idempotent producer connect', () => producer.connect());
    await step(`produce ${N} messages (acks=-1)`, async () => {
      const messages = Array.from({ length: N }, (_, i) => ({ key: `k${i % 7}`, value: JSON.stringify({ i }) }));
      const res = await producer.send({ topic, acks: -1, messages });
      return res.map((r) => `p${r.partition}@${r.baseOffset}`).join(' ');
    });

    await step('admin.fetchTopicOffsets', async () => {
      const offs = await admin.fetchTopicOffsets(topic);
      const total = offs.reduce((s, p) => s + Number(p.high) - Number(p.low), 0);
      assert.equal(total, N);
      return offs.map((p) => `p${p.partition}:${p.low}-${p.high}`).join(' ');
    });

    await step('consumer connect + subscribe', async () => {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
    });
    let joinMs;
    const got = [];
    await step(`consumer group join + consume ${N} (manual commit)`, async () => {
      const t0 = Date.now();
      const joined = new Promise((resolve) =>
        consumer.on(consumer.events.GROUP_JOIN, (e) => {
          joinMs = Date.now() - t0;
          resolve(e);
        }),
      );
      /** @type {Promise<void>} */
      const all = new Promise((resolve) => {
        consumer.run({
          autoCommit: false,
          eachMessage: async ({ topic: t, partition, message }) => {
            got.push(message);
            await consumer.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
            if (got.length === N) resolve();
          },
        });
      });
      const j = await joined;
      await Promise.race([
        all,
        new Promise((_, rej) => setTimeout(() => rej(new Error(`only ${got.length}/${N} messages after 30 s`)), 30000)),
      ]);
      return {
        joinMs,
        groupJoinEventDurationMs: j.duration,
        leader: j.payload.isLeader,
        assigned: j.payload.memberAssignment,
      };
    });

    await step('admin.fetchOffsets (committed == high watermarks)', async () => {
      const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
      const high = await admin.fetchTopicOffsets(topic);
      for (const p of high) {
        const c = committed[0].partitions.find((x) => x.partition === p.partition);
        assert.equal(c?.offset, p.high, `partition ${p.partition}`);
      }
      return committed[0].partitions.map((p) => `p${p.partition}:${p.offset}`).join(' ');
    });
    await step('admin.describeGroups (Stable, 1 member)', async () => {
      const { groups } = await admin.describeGroups([groupId]);
      assert.equal(groups[0].state, 'Stable');
      assert.equal(groups[0].members.length, 1);
      return { state: groups[0].state, protocolType: groups[0].protocolType, protocol: groups[0].protocol };
    });
    await step('admin.listGroups', async () => {
      const { groups } = await admin.listGroups();
      assert.ok(groups.some((g) => g.groupId === groupId));
    });

    await step('second member joins the group (rebalance)', async () => {
      const c2 = kafka.consumer({
        groupId,
        sessionTimeout: 10000,
        heartbeatInterval: 1000,
        rebalanceTimeout: 10000,
        maxWaitTimeInMs: 250,
      });
      const t0 = Date.now();
      try {
        const joined = new Promise((resolve) => c2.on(c2.events.GROUP_JOIN, resolve));
        await c2.connect();
        await c2.subscribe({ topic, fromBeginning: true });
        await c2.run({ eachMessage: async () => {} });
        const e = await joined;
        const ms = Date.now() - t0;
        const { groups } = await admin.describeGroups([groupId]);
        assert.equal(groups[0].members.length, 2);
        return { rebalanceMs: ms, c2Assigned: e.payload.memberAssignment };
      } finally {
        await c2.disconnect();
      }
    });

    await step('transactional producer: init + send + commit', async () => {
      await txProducer.connect();
      const tx = await txProducer.transaction();
      await tx.send({ topic: topic2, messages: [{ key: 'a', value: 'tx-1' }] });
      await tx.commit();
      // EndTxn returns before the commit markers are written; poll until the LSO moves past them
      // (fetchTopicOffsets is read_committed): 1 record + 1 commit marker => sum(high) == 2.
      const t0 = Date.now();
      for (;;) {
        const offs = await admin.fetchTopicOffsets(topic2);
        const sum = offs.reduce((s, p) => s + Number(p.high), 0);
        if (sum === 2)
          return `${offs.map((p) => `p${p.partition}:${p.high}`).join(' ')} (markers visible after ${Date.now() - t0} ms)`;
        if (Date.now() - t0 > 10000) throw new Error(`committed transaction not visible: ${JSON.stringify(offs)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    });

    await step('consumer disconnect (leave group)', () => consumer.disconnect());
    await step('admin.deleteGroups', async () => {
      const r = await admin.deleteGroups([groupId]);
      assert.equal(r[0].errorCode, 0);
    });
    await step('admin.deleteTopics', async () => {
      await admin.deleteTopics({ topics: [topic, topic2], timeout: 10000 });
      const left = await admin.listTopics();
      assert.ok(!left.includes(topic) && !left.includes(topic2));
    });
    return { brokers, joinMs, results };
  } finally {
    await Promise.allSettled([producer.disconnect(), txProducer.disconnect(), consumer.disconnect()]);
    await admin.disconnect().catch(() => {});
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkKafkajs().then(
    (r) => {
      console.log(`${r.results.length} passed, 0 failed`);
      process.exit(0);
    },
    () => {
      const failed = results.filter((r) => !r.ok).length || 1;
      console.log(`${results.filter((r) => r.ok).length} passed, ${failed} failed`);
      process.exit(1);
    },
  );
}
