/** Node socket errors that mean the other side (database, broker) is not there right now. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * PostgreSQL: connection exceptions (class 08), shutdown or crash of the server, still starting
 * up, no connection slot; and a transaction the server rolled back to break a deadlock or a
 * serialization conflict (40P01, 40001), which says nothing about the message and succeeds when
 * run again (a batch fold locking many orders can meet another writer; decision 210).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P01|57P02|57P03|53300|40P01|40001)$/;
/** What pg and its pool say when a connection died or could not be made. */
const PG_CONNECTION_LOST =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/i;
/** kafkajs: the broker could not be reached or did not answer. */
const KAFKA_UNREACHABLE = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  driverError?: unknown;
}

/**
 * Whether an error says the database or the broker could not be reached, rather than anything
 * about the message being handled. Such a failure lasts as long as the outage and is retried for
 * as long; counting it as one of a message's attempts would dead-letter every message of a
 * PostgreSQL restart. Looks through the wrappers TypeORM (driverError) and kafkajs
 * (originalError, cause) put around the error.
 */
export function isInfrastructureFault(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (UNREACHABLE_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
  if (typeof e.name === 'string' && KAFKA_UNREACHABLE.has(e.name)) return true;
  if (typeof e.message === 'string' && PG_CONNECTION_LOST.test(e.message)) return true;
  return [e.driverError, e.originalError, e.cause].some((inner) => isInfrastructureFault(inner, depth + 1));
}
