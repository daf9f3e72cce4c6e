import fc from 'fast-check';

/**
 * A fuzzer built from an OpenAPI document: for every operation, requests of the documented shape
 * and mutated ones (wrong types, boundary and huge numbers, long and unicode strings, missing and
 * extra fields, duplicate keys, deep nesting, wrong content types, bad headers and path values).
 * The plan is drawn by fast-check from a seed, so a run is replayed by giving its seed again.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Operation {
  /** The service whose document lists it, and that document (schemas are resolved in it). */
  service: string;
  doc: any;
  method: string;
  path: string;
  access: 'merchant' | 'ops' | 'provider' | 'public';
  params: { name: string; in: string; schema: any; required: boolean }[];
  body?: { schema: any; examples: Json[] };
}

/** How a path parameter is filled when the request is sent: a known id of its kind, or a literal. */
export type PathValue = { known: number } | { literal: string };

export type Mutation =
  | { kind: 'none' }
  | { kind: 'wrong-type'; at: number; value: Json }
  | { kind: 'boundary-number'; at: number; value: number | 'huge' }
  | { kind: 'odd-string'; at: number; value: string }
  | { kind: 'missing-field'; at: number }
  | { kind: 'extra-field'; at: number; name: string; value: Json }
  | { kind: 'duplicate-key' }
  | { kind: 'deep-nesting'; depth: number; shape: 'array' | 'object' }
  | { kind: 'malformed-json'; text: string }
  | { kind: 'content-type'; value: string | null }
  | { kind: 'authorization'; value: string | null }
  | { kind: 'idempotency-key'; value: string };

export interface PlannedRequest {
  op: Operation;
  pathValues: Record<string, PathValue>;
  query: Record<string, string>;
  /** The valid-shaped body before the mutation (undefined for operations without one). */
  body?: Json;
  mutation: Mutation;
  /** Send it again with the same Idempotency-Key, then with the same key and another body. */
  idempotencyCheck: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The operations of a document (the /api/v1 copies left out: the same handlers answer them). */
export function operationsOf(doc: any, service: string): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (path.startsWith('/api/v1/')) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const schemes = (op.security ?? []).flatMap((s: object) => Object.keys(s));
      const access = schemes.includes('operator-token')
        ? 'ops'
        : schemes.includes('provider-signature') || schemes.includes('payme-basic')
          ? 'provider'
          : schemes.length > 0
            ? 'merchant'
            : 'public';
      const json = op.requestBody?.content?.['application/json'];
      const examples: Json[] = json?.examples
        ? Object.values<any>(json.examples).map((e) => e.value)
        : json?.example !== undefined
          ? [json.example]
          : [];
      ops.push({
        service,
        doc,
        method: method.toUpperCase(),
        path,
        access,
        params: (op.parameters ?? []).map((p: any) => ({
          name: p.name,
          in: p.in,
          schema: p.schema ?? {},
          required: !!p.required,
        })),
        body: json ? { schema: resolve(doc, json.schema), examples } : undefined,
      });
    }
  }
  return ops;
}

function resolve(doc: any, schema: any): any {
  let s = schema;
  for (let i = 0; s?.$ref && i < 16; i++) {
    const path = String(s.$ref).replace(/^#\//, '').split('/');
    s = path.reduce((node: any, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return s ?? {};
}

/** Values of the documented shape, drawn from the schema (an example's values where it gives one). */
export function valueArb(doc: any, raw: any, depth = 0): fc.Arbitrary<Json> {
  const schema = resolve(doc, raw);
  if (schema.allOf?.length) return valueArb(doc, schema.allOf[0], depth);
  if (schema.oneOf?.length || schema.anyOf?.length)
    return fc.oneof(...(schema.oneOf ?? schema.anyOf).map((s: any) => valueArb(doc, s, depth))) as fc.Arbitrary<Json>;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom<Json>(...(schema.enum as Json[]));
  const withExample = (arb: fc.Arbitrary<Json>) =>
    schema.example !== undefined ? fc.oneof({ arbitrary: fc.constant(schema.example), weight: 3 }, arb) : arb;
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uuid') return withExample(fc.uuid());
      if (schema.format === 'email') return withExample(fc.emailAddress());
      if (schema.pattern) {
        try {
          return withExample(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 256));
        } catch {
          /* a pattern fast-check cannot read: fall back to plain strings */
        }
      }
      return withExample(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) }),
      );
    }
    case 'integer':
      return withExample(fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 }));
    case 'number':
      return withExample(fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000, noNaN: true }));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(valueArb(doc, schema.items ?? {}, depth + 1), { maxLength: 3 });
    default: {
      const props: Record<string, any> = schema.properties ?? {};
      if (depth > 4 || Object.keys(props).length === 0) return withExample(fc.constant({}));
      const members = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueArb(doc, s, depth + 1)]));
      return withExample(fc.record(members, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Json>);
    }
  }
}

const oddStrings = fc.oneof(
  fc.constant('x'.repeat(10_000)),
  fc.constant('\u0000'),
  fc.constant('\ud800'),
  fc.constant('\u202e\u0645\u0631\u062d\u0628\u0627'),
  fc.constant('😀'.repeat(300)),
  fc.constant('   '),
  fc.constant(''),
  fc.constant("'; DROP TABLE orders; --"),
  fc.constant('${jndi:ldap://127.0.0.1/a}'),
  fc.string({ unit: 'grapheme', maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
);

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.boolean(),
  fc.integer(),
  fc.constantFrom<Json>(null, 1e308, 'str', [], {}, [1, 'a', null], { amount: '1', currency: 'USD' }),
);

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.constant<Mutation>({ kind: 'none' }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('wrong-type' as const), at: fc.nat(), value: anyJson }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('boundary-number' as const),
      at: fc.nat(),
      value: fc.constantFrom<number | 'huge'>(0, -0, -1, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 5e-324, 'huge'),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('odd-string' as const), at: fc.nat(), value: oddStrings }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('missing-field' as const), at: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('extra-field' as const),
      at: fc.nat(),
      name: fc.oneof(fc.constantFrom('extra', '__proto__', 'constructor', 'cryptoPayment', 'ключ'), fc.string()),
      value: anyJson,
    }),
    weight: 2,
  },
  { arbitrary: fc.constant<Mutation>({ kind: 'duplicate-key' }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('deep-nesting' as const),
      depth: fc.constantFrom(33, 100, 3_000, 10_000),
      shape: fc.constantFrom('array' as const, 'object' as const),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('malformed-json' as const),
      text: fc.constantFrom(
        '{',
        '{"a":',
        '[1,]',
        '{"a":1}}',
        'null',
        '[]',
        '"text"',
        '12',
        'NaN',
        '\u0000',
        '{"a":1}garbage',
      ),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('content-type' as const),
      value: fc.constantFrom(
        null,
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/merge-patch+json',
        'Application/JSON',
      ),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('authorization' as const),
      value: fc.constantFrom(
        null,
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        `Bearer ${'k'.repeat(5000)}`,
        'Bearer sk_nope',
      ),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('idempotency-key' as const),
      value: fc.constantFrom('', ' ', 'k'.repeat(300), 'clé-été', 'a b', '\t'),
    }),
    weight: 1,
  },
);

const pathValueArb: fc.Arbitrary<PathValue> = fc.oneof(
  { arbitrary: fc.record({ known: fc.nat() }), weight: 6 },
  {
    arbitrary: fc.record({
      literal: fc.oneof(
        fc.uuid(),
        fc.constantFrom('not-a-uuid', '0', '%00', '..%2F..', 'x'.repeat(300), '%F0%9F%98%80', '%E0%A4%A', '%25'),
      ),
    }),
    weight: 2,
  },
);

function requestArb(op: Operation): fc.Arbitrary<PlannedRequest> {
  const doc = op.doc;
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const bodyArb: fc.Arbitrary<Json | undefined> = op.body
    ? fc.oneof(
        ...(op.body.examples.length > 0 ? [{ arbitrary: fc.constantFrom(...op.body.examples), weight: 3 }] : []),
        { arbitrary: valueArb(doc, op.body.schema), weight: 1 },
      )
    : fc.constant(undefined);
  return fc.record({
    op: fc.constant(op),
    pathValues: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValueArb]))),
    query: fc.record(
      Object.fromEntries(
        queryParams.map((p) => [
          p.name,
          fc.oneof(
            valueArb(doc, p.schema).map((v) => String(v)),
            oddStrings.map((s) => s.slice(0, 512)),
          ),
        ]),
      ),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>,
    body: bodyArb,
    mutation: mutationArb,
    // Only where the document says the operation takes an Idempotency-Key (a provider's protocol has its own ids).
    idempotencyCheck:
      op.method === 'POST' && op.params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')
        ? fc.boolean()
        : fc.constant(false),
  }) as fc.Arbitrary<PlannedRequest>;
}

/** `count` requests over every operation, drawn from `seed`: the same seed gives the same plan. */
export function planRequests(ops: Operation[], count: number, seed: number): PlannedRequest[] {
  const arb = fc.constantFrom(...ops).chain((op) => requestArb(op));
  return fc.sample(arb, { seed, numRuns: count });
}

/** The JSON paths of a value (objects and arrays included), for a mutation to pick one by index. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): Json {
  if (path.length === 0) return value === undefined ? {} : value;
  const copy = structuredClone(root) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

const HUGE = '__fuzz_huge_number__';

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The request as sent: the mutation applied to the body, headers and path. */
export function toWire(
  planned: PlannedRequest,
  baseUrl: string,
  credentials: string | undefined,
  fillPath: (name: string, value: PathValue) => string,
): WireRequest {
  const headers: Record<string, string> = {};
  if (credentials) headers.authorization = `Bearer ${credentials}`;
  const m = planned.mutation;
  let body: string | undefined;
  if (planned.body !== undefined) {
    let value: Json = planned.body;
    const paths = pathsOf(value);
    const pick = (at: number) => paths[at % paths.length];
    const leaves = paths.filter((p) => p.length > 0);
    const pickLeaf = (at: number) => (leaves.length > 0 ? leaves[at % leaves.length] : []);
    switch (m.kind) {
      case 'wrong-type':
        value = setAt(value, pick(m.at), m.value);
        break;
      case 'boundary-number':
        value = setAt(value, pickLeaf(m.at), m.value === 'huge' ? HUGE : m.value);
        break;
      case 'odd-string':
        value = setAt(value, pickLeaf(m.at), m.value);
        break;
      case 'missing-field':
        if (leaves.length > 0) value = setAt(value, pickLeaf(m.at), undefined);
        break;
      case 'extra-field': {
        const objects = paths.filter((p) => {
          const node = p.reduce((n: any, k) => n?.[k], value);
          return node && typeof node === 'object' && !Array.isArray(node);
        });
        if (objects.length > 0) value = setAt(value, [...objects[m.at % objects.length], m.name], m.value);
        break;
      }
      default:
        break;
    }
    body = JSON.stringify(value).replace(`"${HUGE}"`, '9'.repeat(400));
    if (m.kind === 'duplicate-key' && body.startsWith('{"')) {
      const firstKey = body.slice(1).match(/^"((?:[^"\\]|\\.)*)"/)?.[0];
      if (firstKey) body = `{${firstKey}:{"duplicate":true},${body.slice(1)}`;
    }
    if (m.kind === 'deep-nesting') {
      body =
        m.shape === 'array'
          ? `${'['.repeat(m.depth)}${']'.repeat(m.depth)}`
          : `${'{"a":'.repeat(m.depth)}1${'}'.repeat(m.depth)}`;
    }
    if (m.kind === 'malformed-json') body = m.text;
    headers['content-type'] = 'application/json';
    if (m.kind === 'content-type') {
      if (m.value === null) delete headers['content-type'];
      else headers['content-type'] = m.value;
    }
  }
  if (m.kind === 'authorization') {
    if (m.value === null) delete headers.authorization;
    else headers.authorization = m.value;
  }
  if (m.kind === 'idempotency-key' && planned.op.method === 'POST') headers['idempotency-key'] = m.value;
  const path = planned.op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    fillPath(name, planned.pathValues[name] ?? { literal: 'missing' }),
  );
  const query = new URLSearchParams(planned.query).toString();
  return { method: planned.op.method, url: `${baseUrl}${path}${query ? `?${query}` : ''}`, headers, body };
}

/** Whether the planned request is meant to be acceptable (no mutation, known ids). */
export function isValidShaped(planned: PlannedRequest): boolean {
  return planned.mutation.kind === 'none' && Object.values(planned.pathValues).every((v) => 'known' in v);
}
