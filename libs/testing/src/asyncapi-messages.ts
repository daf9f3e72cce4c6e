import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { load } from 'js-yaml';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every message an e2e test reads from a topic is held to docs/asyncapi.yaml: its topic must be a
 * channel of the document, and its key, headers and value must match the message of that channel
 * whose envelope `type` it carries. TopicReader runs the check on each message it reads, so a test
 * that sees an undocumented message fails.
 */

export const ASYNCAPI_DOCUMENT = path.resolve(__dirname, '../../../docs/asyncapi.yaml');
/** Where checked channels and messages are recorded for the run's closing summary. */
export const ASYNCAPI_COVERAGE_DIR = path.resolve(__dirname, '../../../.run/asyncapi-coverage');

export interface TopicMessage {
  topic: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

interface ChannelMessage {
  id: string;
  /** The envelope `type` it carries; undefined for a dead letter, whose value is anything. */
  type?: string;
  payload: ValidateFunction;
  headers?: ValidateFunction;
  key?: ValidateFunction;
}

interface Channel {
  id: string;
  /** Matches the topic name after the test stack's prefix. */
  pattern: RegExp;
  /** Its messages' validators, compiled at the first call and kept. */
  messages: () => ChannelMessage[];
}

let channels: Channel[] | undefined;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function channelsOf(file: string): Channel[] {
  const { id: _, ...doc } = load(readFileSync(file, 'utf8')) as any; // `id` is the AsyncAPI identifier, no schema id
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'asyncapi');
  const compile = (pointer: string) => ajv.compile({ $ref: `asyncapi#${pointer}` });
  const out: Channel[] = [];
  for (const [id, channel] of Object.entries<any>(doc.channels ?? {})) {
    const address = String(channel.address)
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{[^}]+\}/g, '.+');
    let messages: ChannelMessage[] | undefined;
    const compileMessages = (): ChannelMessage[] =>
      Object.values<any>(channel.messages ?? {}).map((messageRef) => {
        const messageId = String(messageRef.$ref).split('/').pop()!;
        const message = doc.components.messages[messageId];
        const at = `/components/messages/${escapePointer(messageId)}`;
        return {
          id: messageId,
          type: message.payload?.properties?.type?.const,
          payload: compile(`${at}/payload`),
          headers: message.headers ? compile(`${at}/headers`) : undefined,
          key: message.bindings?.kafka?.key ? compile(`${at}/bindings/kafka/key`) : undefined,
        };
      });
    // A prefix (a test stack's own) ends with a dot; none in production.
    out.push({ id, pattern: new RegExp(`^(?:.+\\.)?${address}$`), messages: () => (messages ??= compileMessages()) });
  }
  // The most specific first: `orders.events.dlq` is not a message of `orders.events`.
  return out.sort((a, b) => b.pattern.source.length - a.pattern.source.length);
}

function problems(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` "${e.params.additionalProperty}"` : ''}${e.params && 'allowedValue' in e.params ? ` ${JSON.stringify(e.params.allowedValue)}` : ''}`,
    )
    .join('; ');
}

/** The channel a topic belongs to, or undefined when the document lists none for it. */
function channelOf(topic: string, file: string): Channel | undefined {
  const all = file === ASYNCAPI_DOCUMENT ? (channels ??= channelsOf(file)) : channelsOf(file);
  return all.find((c) => c.pattern.test(topic));
}

/**
 * Compiles now the validators of the channels `topics` belong to, so that checking their messages
 * compiles nothing. TopicReader.start calls it before it subscribes: compiling at a reader's first
 * message stops the test process, which runs every service of an e2e stack, while requests are in
 * flight (compiling every channel there once took 1.1 s and made a first order miss its 5 s reply
 * timeout in CI). A topic that matches no channel is skipped; checkTopicMessage reports it.
 */
export function prepareTopicChecks(topics: string[]): void {
  for (const topic of topics) channelOf(topic, ASYNCAPI_DOCUMENT)?.messages();
}

/**
 * Throws, naming the topic, the message and what is wrong, when a message read from `topic` is not
 * one docs/asyncapi.yaml documents there. `file` is for the tests of this check.
 */
export function checkTopicMessage(message: TopicMessage, file = ASYNCAPI_DOCUMENT): CheckedMessage {
  const channel = channelOf(message.topic, file);
  if (!channel) throw new Error(`a message on ${message.topic}, a topic docs/asyncapi.yaml does not document`);
  let value: unknown = message.value;
  try {
    value = message.value === null ? null : JSON.parse(message.value);
  } catch {
    // Not JSON: checked as the string it is (only a dead letter may be anything).
  }
  const type = (value as { type?: unknown } | null)?.type;
  const messages = channel.messages();
  const documented = messages.find((m) => m.type === undefined || m.type === type);
  const where = `${message.topic} (${channel.id})`;
  if (!documented) {
    throw new Error(
      `a message of type ${JSON.stringify(type)} on ${where}, which docs/asyncapi.yaml does not document there (documented: ${messages.map((m) => m.type).join(', ')})`,
    );
  }
  const what = `a ${documented.type ?? documented.id} message on ${where}`;
  if (documented.key && !documented.key(message.key)) {
    throw new Error(`${what} has a key that does not match docs/asyncapi.yaml: ${problems(documented.key.errors)}`);
  }
  if (documented.headers && !documented.headers(message.headers)) {
    throw new Error(`${what} has headers that do not match docs/asyncapi.yaml: ${problems(documented.headers.errors)}`);
  }
  if (!documented.payload(value)) {
    throw new Error(`${what} does not match docs/asyncapi.yaml: ${problems(documented.payload.errors)}`);
  }
  return { channel: channel.id, message: documented.id };
}

/** Which channel and message of the document a message was checked against. */
export interface CheckedMessage {
  channel: string;
  message: string;
}

/** Records a checked message for the closing line of the run (global-teardown.js). */
export function recordChecked(checked: CheckedMessage): void {
  mkdirSync(ASYNCAPI_COVERAGE_DIR, { recursive: true });
  appendFileSync(
    path.join(ASYNCAPI_COVERAGE_DIR, `checked-${process.pid}.txt`),
    `${checked.channel}|${checked.message}\n`,
  );
}
