import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { ApiProblems } from '@payments/platform';
import { PaymeMethods } from '@payments/providers/payme';

export const PAYME_BASIC = 'payme-basic';

/** Payme's Basic authorization: `Paycom:<the cashbox key>`. */
export const paymeBasicScheme = {
  type: 'http',
  scheme: 'basic',
  description:
    'Basic base64("Paycom:<cashbox key>"). A wrong or missing one is answered HTTP 200 with JSON-RPC error -32504.',
} as const;

/** The request's id; null when the request could not be read (OpenAPI 3.0: null belongs to one branch). */
const rpcId: SchemaObject = { oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }] };
const message: SchemaObject = {
  type: 'object',
  required: ['ru', 'uz', 'en'],
  properties: { ru: { type: 'string' }, uz: { type: 'string' }, en: { type: 'string' } },
};
const state: SchemaObject = {
  type: 'integer',
  enum: [1, 2, -1, -2],
  description: '1 created, 2 performed, -1/-2 cancelled before/after.',
};
const time: SchemaObject = { type: 'integer', description: 'ms since the epoch; 0 when not yet.' };
const transaction: SchemaObject = { type: 'string', description: "Payme's id of the transaction." };
const reason: SchemaObject = { type: 'integer', nullable: true };
const checked = {
  create_time: time,
  perform_time: time,
  cancel_time: time,
  transaction,
  state,
  reason,
};
const closed = (properties: Record<string, SchemaObject>): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});

/** One `result` per method (Payme's Merchant API); `anyOf`: some shapes share members (Perform and Check). */
const results: SchemaObject[] = [
  { title: 'CheckPerformTransaction', ...closed({ allow: { type: 'boolean', enum: [true] } }) },
  { title: 'CreateTransaction', ...closed({ create_time: time, transaction, state }) },
  { title: 'PerformTransaction', ...closed({ transaction, perform_time: time, state }) },
  { title: 'CancelTransaction', ...closed({ transaction, cancel_time: time, state }) },
  { title: 'CheckTransaction', ...closed(checked) },
  {
    title: 'GetStatement',
    ...closed({
      transactions: {
        type: 'array',
        items: closed({
          id: transaction,
          time,
          amount: { type: 'integer', description: 'In tiyin.' },
          account: closed({ order_id: { type: 'string' } }),
          ...checked,
        }),
      },
    }),
  },
];

const answer: SchemaObject = {
  oneOf: [
    {
      title: 'result',
      ...closed({ jsonrpc: { type: 'string', enum: ['2.0'] }, id: rpcId, result: { anyOf: results } }),
    },
    {
      title: 'error',
      type: 'object',
      required: ['jsonrpc', 'id', 'error'],
      properties: {
        jsonrpc: { type: 'string', enum: ['2.0'] },
        id: rpcId,
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: {
              type: 'integer',
              description:
                '-32700 not JSON, -32600 not a request or bad params, -32601 unknown method, -32504 authorization, ' +
                '-32400 system, -31001 amount, -31003 no transaction, -31007 cannot cancel, -31008 cannot perform, ' +
                '-31050 no order, -31051 another open transaction, -31052 paid or cancelled (docs/providers.md).',
            },
            message,
            data: { type: 'string', description: 'The account field, or why.' },
          },
        },
      },
    },
  ],
};

/** Payme's JSON-RPC endpoint of one cashbox. */
export function PaymeRpcDoc(): MethodDecorator {
  return applyDecorators(
    ApiTags('Payme Merchant API'),
    ApiOperation({
      summary: "Payme's Merchant API (JSON-RPC 2.0) for one cashbox",
      description:
        'Every answer, errors included, is HTTP 200 with a JSON-RPC 2.0 `result` or `error` (decisions 296, 297). ' +
        'A performed transaction cancelled is a refund of the order.',
    }),
    ApiSecurity(PAYME_BASIC),
    ApiParam({
      name: 'merchantId',
      example: '5e730e8e0b852a417aa49ceb',
      description: "The cashbox's Payme merchant id.",
    }),
    ApiBody({
      schema: {
        type: 'object',
        required: ['method', 'params'],
        properties: {
          jsonrpc: { type: 'string', enum: ['2.0'] },
          id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          method: { type: 'string', enum: [...PaymeMethods] },
          params: { type: 'object', description: "The method's parameters, amounts in tiyin." },
        },
      },
      examples: {
        CheckPerformTransaction: {
          summary: 'May this order be paid?',
          value: {
            jsonrpc: '2.0',
            id: 1,
            method: 'CheckPerformTransaction',
            params: { amount: 15000000, account: { order_id: '7d3f1a9e-2b4c-4e8f-9a61-5c0d2e3f4a5b' } },
          },
        },
        CancelTransaction: {
          summary: 'Cancel (after perform: refund)',
          value: {
            jsonrpc: '2.0',
            id: 2,
            method: 'CancelTransaction',
            params: { id: '5305e3bab097f420a62ced0b', reason: 5 },
          },
        },
      },
    }),
    ApiResponse({
      status: 200,
      description: 'A JSON-RPC 2.0 result, or error',
      content: {
        'application/json': {
          schema: answer,
          example: {
            jsonrpc: '2.0',
            id: 2,
            result: { transaction: '5305e3bab097f420a62ced0b', cancel_time: 1795780000000, state: -2 },
          },
        },
      },
    }),
    ApiProblems(413, 415, 500),
  );
}
