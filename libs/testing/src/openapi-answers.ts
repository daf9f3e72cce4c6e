import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every answer the e2e tests receive from a service with an OpenAPI document is held to that
 * document: its status must be declared for the operation and its body must match the declared
 * schema. The check runs inside `http()`, so a test that sees an undocumented answer fails there.
 */

/** Where answered operations and statuses are recorded for the run's closing summary. */
export const OPENAPI_COVERAGE_DIR = path.resolve(__dirname, '../../../.run/openapi-coverage');

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  service: string;
  method: string;
  path: string;
  pattern: RegExp;
  /** The path as the summary counts it: /api/v1/order is the same operation as /order. */
  key: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  pointer: string;
}

interface Contract {
  service: string;
  ajv: Ajv;
  operations: Operation[];
  validators: Map<string, ValidateFunction>;
}

const contracts = new Map<string, Contract>();
const recorded = new Set<string>();

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const operationKey = (method: string, p: string) => `${method.toUpperCase()} ${p.replace(/^\/api\/v1(?=\/)/, '')}`;

/**
 * Objects of answers are closed unless the document says otherwise: an undocumented field is a gap
 * in the document (or a leak) that a test should see. A schema that keeps an object open says so with
 * `additionalProperties` (the Problem schema does: RFC 9457 allows extension members).
 */
function closeObjects(node: unknown, inComposition = false): void {
  if (Array.isArray(node)) {
    for (const item of node) closeObjects(item, inComposition);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const composed = ['allOf', 'oneOf', 'anyOf'].some((k) => k in schema);
  if (schema.properties && typeof schema.properties === 'object' && !('additionalProperties' in schema))
    if (!composed && !inComposition) schema.additionalProperties = false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'example' || k === 'examples') continue;
    closeObjects(v, k === 'allOf');
  }
}

/** Reads a service's OpenAPI document; answers from `baseUrl` are checked against it from now on. */
export function registerOpenApi(service: string, baseUrl: string, document: any): void {
  const doc = structuredClone(document);
  closeObjects(doc.components);
  closeObjects(doc.paths);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const operations: Operation[] = [];
  const documented: string[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const pattern = new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const key = operationKey(method, p);
      operations.push({
        service,
        method: method.toUpperCase(),
        path: p,
        pattern,
        key,
        responses: op.responses ?? {},
        pointer: `openapi#/paths/${escapePointer(p)}/${method}/responses`,
      });
      for (const status of Object.keys(op.responses ?? {})) documented.push(`${service}|${key}|${status}`);
    }
  }
  contracts.set(baseUrl, { service, ajv, operations, validators: new Map() });
  mkdirSync(OPENAPI_COVERAGE_DIR, { recursive: true });
  writeFileSync(path.join(OPENAPI_COVERAGE_DIR, `documented-${service}.txt`), [...new Set(documented)].join('\n'));
}

export function unregisterOpenApi(baseUrl: string): void {
  contracts.delete(baseUrl);
}

function record(line: string): void {
  if (recorded.has(line)) return;
  recorded.add(line);
  mkdirSync(OPENAPI_COVERAGE_DIR, { recursive: true });
  appendFileSync(path.join(OPENAPI_COVERAGE_DIR, `answered-${process.pid}.txt`), `${line}\n`);
}

/**
 * Throws, naming the operation and what is wrong, when an answer is not the documented one. An answer
 * from a path or method the document does not list (an unknown route's 404, a 405) is not checked.
 */
export function checkAnswer(...args: Parameters<typeof checkAnswerStrict>): void {
  try {
    checkAnswerStrict(...args);
  } catch (e) {
    if (!process.env.OPENAPI_ANSWERS_REPORT) throw e;
    appendFileSync(process.env.OPENAPI_ANSWERS_REPORT, `${(e as Error).message}\n`);
  }
}

function checkAnswerStrict(method: string, url: string, status: number, contentType: string | null, body: unknown) {
  const base = [...contracts.keys()].find((b) => url.startsWith(`${b}/`));
  if (!base || method.toUpperCase() === 'HEAD') return;
  const contract = contracts.get(base)!;
  const pathname = new URL(url).pathname.replace(/(.)\/$/, '$1');
  const op = contract.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
  if (!op) return;
  const where = `${op.method} ${op.path} (${contract.service})`;
  const statusKey = op.responses[String(status)] ? String(status) : op.responses.default ? 'default' : undefined;
  if (!statusKey) {
    throw new Error(
      `${where} answered ${status}, which its OpenAPI document does not declare (declared: ${Object.keys(op.responses).join(', ')})`,
    );
  }
  record(`${contract.service}|${op.key}|${status}`);
  const content = op.responses[statusKey].content;
  const empty = body === undefined || body === '';
  if (!content) {
    if (!empty) throw new Error(`${where} answered ${status} with a body its OpenAPI document does not declare`);
    return;
  }
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const media = content[mediaType];
  if (!media) {
    throw new Error(
      `${where} answered ${status} as "${mediaType}", not as its OpenAPI document says (${Object.keys(content).join(', ')})`,
    );
  }
  if (!media.schema) return;
  const pointer = `${op.pointer}/${statusKey}/content/${escapePointer(mediaType)}/schema`;
  let validate = contract.validators.get(pointer);
  if (!validate) {
    validate = contract.ajv.compile({ $ref: pointer });
    contract.validators.set(pointer, validate);
  }
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` "${e.params.additionalProperty}"` : ''}`,
      )
      .join('; ');
    throw new Error(`${where} answered ${status} with a body that does not match its OpenAPI schema: ${problems}`);
  }
}
