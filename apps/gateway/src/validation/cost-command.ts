import type { TransferCost } from '@payments/contracts';
import { canonicalCurrency } from '@payments/money';
import type { CostDto } from '../orders/create-order.dto';

/** A validated `cost` as commands carry it: the currency under its current name (renamed asset codes are accepted). */
export function toCommandCost(cost: CostDto): TransferCost {
  return {
    amount: cost.amount,
    currency: canonicalCurrency(cost.currency),
    ...(cost.tokenStandard ? { tokenStandard: cost.tokenStandard } : {}),
  };
}
