/**
 * Click SHOP-API error codes, as the "Click-API – Error" page lists them
 * (https://docs.click.uz/en/click-api-error/): the number goes in `error`, the note in `error_note`.
 */
export const ClickErrors = {
  success: { error: 0, note: 'Success' },
  signCheckFailed: { error: -1, note: 'SIGN CHECK FAILED!' },
  incorrectAmount: { error: -2, note: 'Incorrect parameter amount' },
  actionNotFound: { error: -3, note: 'Action not found' },
  alreadyPaid: { error: -4, note: 'Already paid' },
  userNotFound: { error: -5, note: 'User does not exist' },
  transactionNotFound: { error: -6, note: 'Transaction does not exist' },
  failedToUpdate: { error: -7, note: 'Failed to update user' },
  badRequest: { error: -8, note: 'Error in request from click' },
  transactionCancelled: { error: -9, note: 'Transaction cancelled' },
} as const;

export type ClickErrorName = keyof typeof ClickErrors;
export type ClickErrorCode = (typeof ClickErrors)[ClickErrorName]['error'];
