import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { cardNumbersIn, CardNumberInText } from '@payments/methods-domain';
import { testKafka } from './infra';

/** Where a card number was found, and the number (test data only: the flows use test cards). */
export interface CardFinding {
  where: string;
  number: string;
}

/**
 * Every card number in a stored or published text: the rule that refuses card numbers in free
 * input (cardNumbersIn, libs/methods-domain, decision 258), and more: it also looks inside longer
 * numbers (`insideLongerNumbers`), so a card with digits stuck to it is found too and what proves
 * nothing is stored is stricter than what refuses it on the way in. Two exclusions on top, for
 * what databases and topics hold and free text does not:
 * the decimals of an amount (`100.180000000000000000`, numeric(38, 18)), and the digits inside an
 * epoch time in ms, µs or ns (13, 16 or 19 digits starting with 1: migration names, timestamps),
 * which no card scheme issues. Both only for digits found as one group, never for a card layout.
 */
export function findCardNumbers(text: string): string[] {
  return cardNumbersIn(text, { insideLongerNumbers: true })
    .filter((f) => !(f.oneGroup && (decimalFraction(text, f) || epochTime(text, f))))
    .map((f) => f.number);
}

/** The digits follow `<digit>.`: the fraction of a decimal number. */
export function decimalFraction(text: string, found: CardNumberInText): boolean {
  return text[found.start - 1] === '.' && /[0-9]/.test(text[found.start - 2] ?? '');
}

/** The digits are an epoch time in ms, µs or ns: 13, 16 or 19 digits starting with 1. */
export function epochTime(text: string, found: CardNumberInText): boolean {
  const group = text.slice(found.start, found.end);
  return group.startsWith('1') && [13, 16, 19].includes(group.length);
}

/** Every column of every row of every table of every schema of a database, read as text. */
export async function scanDatabaseForCards(
  databaseUrl: string,
  find: (text: string) => string[] = findCardNumbers,
): Promise<CardFinding[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows: tables } = await db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const findings: CardFinding[] = [];
    for (const t of tables) {
      const table = `"${t.schema}"."${t.name}"`;
      const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`);
      for (const { row } of rows) for (const number of find(row)) findings.push({ where: table, number });
    }
    return findings;
  } finally {
    await db.end();
  }
}

/**
 * Every message (key, value and headers) of every topic whose name starts with `prefix`, the
 * `.dlq` topics included, read from the beginning up to each partition's end.
 */
export async function scanTopicsForCards(
  prefix: string,
  find: (text: string) => string[] = findCardNumbers,
): Promise<{ findings: CardFinding[]; messages: number }> {
  const kafka = testKafka('card-scan');
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  const ends = new Map<string, bigint>();
  for (const topic of topics)
    for (const p of await admin.fetchTopicOffsets(topic))
      if (BigInt(p.high) > BigInt(p.low)) ends.set(`${topic}/${p.partition}`, BigInt(p.high) - 1n);
  await admin.disconnect();
  const findings: CardFinding[] = [];
  let messages = 0;
  if (ends.size === 0) return { findings, messages };
  const consumer = kafka.consumer({ groupId: `card-scan-${randomUUID()}`, maxWaitTimeInMs: 200 });
  let lastProgress = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({
      topics: topics.filter((t) => [...ends.keys()].some((k) => k.startsWith(`${t}/`))),
      fromBeginning: true,
    });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        messages++;
        lastProgress = Date.now();
        const where = `${topic}[${partition}]@${message.offset}`;
        const headers = Object.entries(message.headers ?? {}).map(([k, v]) => `${k}=${String(v)}`);
        const text = [message.key?.toString() ?? '', message.value?.toString() ?? '', ...headers].join('\n');
        for (const number of find(text)) findings.push({ where, number });
        const key = `${topic}/${partition}`;
        if (ends.has(key) && BigInt(message.offset) >= ends.get(key)!) ends.delete(key);
      },
    });
    // Until every partition's last offset was read; a partition whose last offsets are
    // transaction markers never delivers them, so 5 s without a message also ends the scan.
    while (ends.size > 0 && Date.now() - lastProgress < 5000) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await consumer.disconnect();
  }
  return { findings, messages };
}
