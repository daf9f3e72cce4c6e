import { canonicalCurrency, checkTokenStandard, findCurrency } from '@payments/money';
import type { CreateOrderCommand } from '@payments/contracts';
import { FieldError } from '@payments/platform';
import type { CreateOrderDto } from './create-order.dto';

/** Rules across fields that a field's own validator cannot see. */
export function crossFieldErrors(body: CreateOrderDto): FieldError[] {
  const errors: FieldError[] = [];
  if (body.paymentSettings?.walletType !== undefined && body.instrumentType !== 'wallet') {
    errors.push({ path: 'paymentSettings.walletType', message: 'applies only with instrumentType = wallet' });
  }
  if (body.payer?.bankTransferData !== undefined && body.instrumentType !== 'bank_transfer') {
    errors.push({ path: 'payer.bankTransferData', message: 'applies only with instrumentType = bank_transfer' });
  }
  return errors;
}

/**
 * The command for the orders service: currencies in their current names (renamed asset codes
 * are accepted and answered with the new name), and a merchant-balance token standard dropped
 * where the spec says it is ignored (fiat).
 */
export function toCreateOrderCommand(
  orderId: string,
  shopId: string,
  body: CreateOrderDto,
  hosted?: { linkHash: string; expiresAt: string },
): CreateOrderCommand {
  const balance = body.recipient?.merchantBalance;
  const balanceCurrency = balance ? findCurrency(balance.currency) : undefined;
  const balanceTokenStandard =
    balance && balanceCurrency?.kind === 'found'
      ? checkTokenStandard(balanceCurrency.currency, balance.tokenStandard)
      : undefined;
  return {
    orderId,
    shopId,
    merchantOrderId: body.order.merchantOrderId,
    cost: {
      amount: body.order.cost.amount,
      currency: canonicalCurrency(body.order.cost.currency),
      ...(body.order.cost.tokenStandard ? { tokenStandard: body.order.cost.tokenStandard } : {}),
    },
    ...(body.order.description ? { description: body.order.description } : {}),
    ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    ...(hosted
      ? {
          hosted: {
            ...hosted,
            ...(body.paymentPageDesign?.locale ? { locale: body.paymentPageDesign.locale } : {}),
            ...(body.redirectUrls ? { redirectUrls: { ...body.redirectUrls } } : {}),
          },
        }
      : {}),
    ...(body.instrumentType ? { instrumentType: body.instrumentType } : {}),
    ...(body.paymentSettings ? { paymentSettings: { ...body.paymentSettings } } : {}),
    ...(body.payer ? { payer: JSON.parse(JSON.stringify(body.payer)) as Record<string, unknown> } : {}),
    ...(balance
      ? {
          recipient: {
            merchantBalance: {
              currency: canonicalCurrency(balance.currency),
              ...(balanceTokenStandard?.kind === 'ok' && balanceTokenStandard.tokenStandard
                ? { tokenStandard: balanceTokenStandard.tokenStandard }
                : {}),
            },
          },
        }
      : {}),
  };
}
