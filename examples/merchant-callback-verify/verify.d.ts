export declare const DEFAULT_TOLERANCE_SECONDS: number;
export declare function verifyCallback(
  rawBody: Buffer | string,
  header: string | undefined,
  secret: string,
  options?: { toleranceSeconds?: number; nowSeconds?: number },
): { valid: true; timestamp: number } | { valid: false; reason: string };
