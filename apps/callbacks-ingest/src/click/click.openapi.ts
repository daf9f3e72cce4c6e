import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '@payments/platform';

const digits = (description: string) => ({ type: 'string', pattern: '^[0-9]+$', description });

/** The form Click posts (docs.click.uz, "Click-API – Request"); values as sent, all strings. */
const formProperties = {
  click_trans_id: digits("Click's id of the payment."),
  service_id: digits("The shop's Click service."),
  click_paydoc_id: digits("Click's payment document."),
  merchant_trans_id: { type: 'string', maxLength: 128, description: 'Our order id.' },
  amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: 'In sums.' },
  action: { type: 'string', enum: ['0', '1'], description: '0 Prepare, 1 Complete.' },
  error: { type: 'string', pattern: '^-?[0-9]+$', description: "Click's own outcome: below 0, it could not debit." },
  error_note: { type: 'string' },
  sign_time: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', example: '2026-11-27 10:00:00' },
  sign_string: {
    type: 'string',
    pattern: '^[0-9a-f]{32}$',
    description:
      'md5(click_trans_id + service_id + SECRET_KEY + merchant_trans_id [+ merchant_prepare_id] + amount + action + sign_time).',
  },
};
const prepareRequired = Object.keys(formProperties);

const ids = {
  click_trans_id: { type: 'integer' },
  merchant_trans_id: { type: 'string' },
};
const outcome = {
  error: { type: 'integer', minimum: -9, maximum: 0, description: '0, or -1 … -9 ("Click-API – Error").' },
  error_note: { type: 'string' },
};
const answerSchema = (idName: 'merchant_prepare_id' | 'merchant_confirm_id') => ({
  type: 'object',
  required: ['click_trans_id', 'merchant_trans_id', idName, 'error', 'error_note'],
  properties: {
    ...ids,
    [idName]: { type: 'integer', nullable: true, description: 'null when the request is refused.' },
    ...outcome,
  },
});

const form = {
  click_trans_id: '2208041339',
  service_id: '70001',
  click_paydoc_id: '2542370861',
  merchant_trans_id: '7d3f1a9e-2b4c-4e8f-9a61-5c0d2e3f4a5b',
  amount: '150000',
  error: '0',
  error_note: 'Success',
  sign_time: '2026-11-27 10:00:00',
};

/** Prepare (action 0) or Complete (action 1): Click's form in, Click's JSON out, HTTP 200 always. */
export function ClickCallDoc(step: 'prepare' | 'complete'): MethodDecorator {
  const complete = step === 'complete';
  const idName = complete ? 'merchant_confirm_id' : 'merchant_prepare_id';
  const properties = complete
    ? { ...formProperties, merchant_prepare_id: digits('Our id from the Prepare answer.') }
    : formProperties;
  const example = complete
    ? { ...form, action: '1', merchant_prepare_id: '41', sign_string: 'e2b4d8f9a1c3e5f7b9d1a3c5e7f9b1d3' }
    : { ...form, action: '0', sign_string: 'a3c5e7f9b1d3e2b4d8f9a1c3e5f7b9d1' };
  return applyDecorators(
    ApiTags('Click SHOP-API'),
    ApiOperation({
      summary: complete
        ? "Click's Complete (action 1): the order is paid when every check passes"
        : "Click's Prepare (action 0): may this order be paid, for this amount?",
      description:
        "Signed by `sign_string` in the form (no header). Always HTTP 200 with `error` 0 or Click's -1 … -9 " +
        '(docs/providers.md, decision 292); a repeated request is answered as the first time.',
    }),
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiProduces('application/json'),
    ApiBody({
      schema: {
        type: 'object',
        required: complete ? [...prepareRequired, 'merchant_prepare_id'] : prepareRequired,
        properties,
      },
      examples: { [step]: { summary: `A ${step} from Click`, value: example } },
    }),
    ApiResponse({
      status: 200,
      description: "Click's answer: `error` 0, or the code of the first check that failed",
      content: {
        'application/json': {
          schema: answerSchema(idName),
          example: {
            click_trans_id: 2208041339,
            merchant_trans_id: form.merchant_trans_id,
            [idName]: 41,
            error: 0,
            error_note: 'Success',
          },
        },
      },
    }),
    ApiProblems(413, 415, 500),
  );
}
