import { checkAnswer } from './openapi-answers';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A plain HTTP call with JSON in and out, as a merchant's client would make it. */
export async function http<T = any>(
  method: string,
  url: string,
  opts: { body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  // Held to the service's OpenAPI document, where the test stack registered one (openapi-answers.ts).
  checkAnswer(method, url, res.status, res.headers.get('content-type'), parsed);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
