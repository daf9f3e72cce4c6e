import { Parser } from '@asyncapi/parser';
import * as contracts from '@payments/contracts';
import { topicContracts, topicSpecs } from '@payments/contracts';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { load } from 'js-yaml';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { asyncApiYaml } from './asyncapi-document';

const ASYNCAPI_DOCUMENT = path.resolve(__dirname, '../../docs/asyncapi.yaml');
const VERSION = (JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string })
  .version;

/**
 * What the generator makes of the contracts, formatted as the committed file is: by the repo's
 * Prettier, in a child process (Prettier loads its parsers with import(), which jest refuses).
 */
function generated(): string {
  const prettier = path.resolve(__dirname, '../../node_modules/prettier/bin/prettier.cjs');
  const r = spawnSync(process.execPath, [prettier, '--stdin-filepath', ASYNCAPI_DOCUMENT], {
    input: asyncApiYaml(VERSION),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`prettier failed: ${r.stderr}`);
  return r.stdout;
}

const committed = () => readFileSync(ASYNCAPI_DOCUMENT, 'utf8');
const doc = () => load(committed()) as any;

describe('docs/asyncapi.yaml, the AsyncAPI document of the Kafka topics', () => {
  it('when the contracts in libs/contracts are built into an AsyncAPI document, then docs/asyncapi.yaml is that document', () => {
    const fresh = generated();
    if (process.env.UPDATE_ASYNCAPI) writeFileSync(ASYNCAPI_DOCUMENT, fresh);
    // On a difference: UPDATE_ASYNCAPI=1 npx jest tools/asyncapi rewrites the committed file.
    expect(committed()).toBe(fresh);
  });

  it('when @asyncapi/parser reads it, then it reports no error and no warning', async () => {
    const { document, diagnostics } = await new Parser().parse(committed());
    // Severity 0 is an error, 1 a warning; 2 and 3 (information, hints) are allowed but shown on a failure.
    const serious = diagnostics.filter((d) => d.severity <= 1);
    expect({ serious, all: diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message}`) }).toMatchObject({
      serious: [],
    });
    expect(document).toBeDefined();
    expect(document!.version()).toBe('3.0.0');
  });

  it('when the topics of topicSpecs() are listed, then each one is a channel of the document, and nothing else is besides the reply topics', () => {
    const addresses = Object.values<any>(doc().channels).map((c) => c.address);
    expect(addresses.sort()).toEqual([...topicSpecs().map((t) => t.name), '{requester}.replies'].sort());
  });

  it('when the message types of topicContracts are listed, then each one is a message of its topic, a request with its reply', () => {
    const d = doc();
    const typesOn = (address: string) =>
      Object.values<any>(Object.values<any>(d.channels).find((c) => c.address === address).messages).map(
        (m) => d.components.messages[m.$ref.split('/').pop()].name,
      );
    for (const contract of topicContracts) {
      expect({ topic: contract.topic, types: typesOn(contract.topic) }).toEqual({
        topic: contract.topic,
        types: contract.messages.map((m) => m.type),
      });
    }
    const replies = topicContracts.flatMap((c) => c.messages.filter((m) => m.reply).map((m) => `${m.type}.reply`));
    // A type of two audiences (order.get_for_operator) has one reply message; the document lists
    // the topics of topicSpecs() in order, the merchants' first, so the order is not compared.
    expect([...typesOn('{requester}.replies')].sort()).toEqual([...new Set(replies)].sort());
  });

  it('when libs/contracts declares a message type (the values of its *Types objects), then topicContracts documents it', () => {
    const declared = Object.entries(contracts)
      .filter(([name, value]) => name.endsWith('Types') && value && typeof value === 'object' && !Array.isArray(value))
      .flatMap(([, value]) => Object.values(value as Record<string, string>));
    expect(declared.length).toBeGreaterThan(20);
    const documented = new Set(topicContracts.flatMap((c) => c.messages.map((m) => m.type)));
    expect(declared.filter((type) => !documented.has(type))).toEqual([]);
  });

  it('when each example is checked with ajv against its message (key, headers, envelope and payload), then every one matches', () => {
    const d = doc();
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schemaOf(d), 'asyncapi');
    const failures: string[] = [];
    let checked = 0;
    for (const [id, message] of Object.entries<any>(d.components.messages)) {
      expect({ id, examples: message.examples?.length ?? 0 }).not.toEqual({ id, examples: 0 });
      for (const [i, example] of (message.examples as any[]).entries()) {
        const at = `asyncapi#/components/messages/${id}`;
        const check = (what: string, pointer: string, value: unknown) => {
          const validate = ajv.getSchema(`${at}/${pointer}`) ?? ajv.compile({ $ref: `${at}/${pointer}` });
          if (!validate(value)) failures.push(`${id} example ${i} ${what}: ${ajv.errorsText(validate.errors)}`);
        };
        check('payload', 'payload', example.payload);
        if (message.headers) check('headers', 'headers', example.headers ?? {});
        const key = /^Key (\S+)/.exec(example.summary ?? '')?.[1];
        if (!key) failures.push(`${id} example ${i} names no key in its summary`);
        else check('key', 'bindings/kafka/key', key);
        checked++;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(Object.keys(d.components.messages).length);
  });

  it('when a mistake is put into an example, then ajv refuses it (the check above can fail)', () => {
    const d = doc();
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schemaOf(d), 'asyncapi');
    const validate = ajv.compile({ $ref: 'asyncapi#/components/messages/orderStatusChanged/payload' });
    const example = structuredClone(d.components.messages.orderStatusChanged.examples[0].payload);
    expect(validate(example)).toBe(true);
    example.payload.cost.amount = 1500;
    expect(validate(example)).toBe(false);
    expect(ajv.errorsText(validate.errors)).toContain('/payload/cost/amount');
  });

  it('when the examples are scanned for card numbers, then there is none (13 to 19 digits passing Luhn)', () => {
    const numbers = committed().match(/(?<![0-9])[0-9]{13,19}(?![0-9])/g) ?? [];
    expect(numbers.filter(luhn)).toEqual([]);
  });
});

/** The document as ajv reads it: its `id` (the AsyncAPI identifier) is no schema id. */
function schemaOf(document: any): object {
  const { id: _, ...rest } = document;
  return rest;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}
