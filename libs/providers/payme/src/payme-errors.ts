/** A Payme error's message in the three languages Payme shows (its Merchant API requires ru, uz, en). */
export interface PaymeMessage {
  ru: string;
  uz: string;
  en: string;
}

/**
 * The Merchant API's error codes (JSON-RPC 2.0 `error.code`), as Payme's developer documentation
 * (developer.help.paycom.uz, Merchant API) lists them. -31050…-31099 are the merchant's own
 * account errors: which of them means what (-31050 no order, -31051 another open transaction,
 * -31052 paid or cancelled) is ours.
 */
export const PaymeErrors = {
  notPost: {
    code: -32300,
    message: { ru: 'Метод запроса не POST', uz: 'Soʻrov usuli POST emas', en: 'Request method is not POST' },
  },
  parse: { code: -32700, message: { ru: 'Ошибка разбора JSON', uz: 'JSON tahlil xatosi', en: 'JSON parse error' } },
  invalidRequest: {
    code: -32600,
    message: { ru: 'Неверный запрос JSON-RPC', uz: 'Notoʻgʻri JSON-RPC soʻrovi', en: 'Invalid JSON-RPC request' },
  },
  methodNotFound: { code: -32601, message: { ru: 'Метод не найден', uz: 'Usul topilmadi', en: 'Method not found' } },
  insufficientPrivilege: {
    code: -32504,
    message: { ru: 'Недостаточно привилегий', uz: 'Huquqlar yetarli emas', en: 'Insufficient privilege' },
  },
  systemError: {
    code: -32400,
    message: { ru: 'Системная ошибка', uz: 'Tizim xatosi', en: 'System error' },
  },
  wrongAmount: { code: -31001, message: { ru: 'Неверная сумма', uz: 'Notoʻgʻri summa', en: 'Wrong amount' } },
  transactionNotFound: {
    code: -31003,
    message: { ru: 'Транзакция не найдена', uz: 'Tranzaksiya topilmadi', en: 'Transaction not found' },
  },
  cannotCancel: {
    code: -31007,
    message: {
      ru: 'Невозможно отменить транзакцию',
      uz: 'Tranzaksiyani bekor qilib boʻlmaydi',
      en: 'Unable to cancel the transaction',
    },
  },
  cannotPerform: {
    code: -31008,
    message: {
      ru: 'Невозможно выполнить операцию',
      uz: 'Amalni bajarib boʻlmaydi',
      en: 'Unable to perform the operation',
    },
  },
  orderNotFound: { code: -31050, message: { ru: 'Заказ не найден', uz: 'Buyurtma topilmadi', en: 'Order not found' } },
  orderBusy: {
    code: -31051,
    message: {
      ru: 'Заказ ожидает оплаты другой транзакцией',
      uz: 'Buyurtma boshqa tranzaksiya bilan toʻlanmoqda',
      en: 'The order awaits another transaction',
    },
  },
  orderNotPayable: {
    code: -31052,
    message: {
      ru: 'Заказ уже оплачен или отменён',
      uz: 'Buyurtma toʻlangan yoki bekor qilingan',
      en: 'The order is paid or cancelled',
    },
  },
} as const;

export type PaymeErrorName = keyof typeof PaymeErrors;

/** The `error` member of a JSON-RPC answer; `data` names the account field for -31050…-31099. */
export function paymeError(
  name: PaymeErrorName,
  data?: string,
): { code: number; message: PaymeMessage; data?: string } {
  const e = PaymeErrors[name];
  return { code: e.code, message: e.message, ...(data ? { data } : {}) };
}
