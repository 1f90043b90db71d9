/**
 * The GUI's one door to the server's JSON API (src/server). Every request that changes something
 * (POST, DELETE) carries the per-server secret the server put in the page
 * (`<meta name="wga-token">`) as the X-WGA-Token header; errors come back as ApiError with the
 * server's message.
 */

/** The message of the API's error document `{error: {code, message, parameter?}}`. */
function errorMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error = (body as { error: unknown }).error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { message, parameter } = error as { message: unknown; parameter?: unknown };
    return typeof parameter === 'string' && !String(message).includes(parameter) ? `${parameter}: ${String(message)}` : String(message);
  }
  return null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function token(): string {
  return document.querySelector('meta[name="wga-token"]')?.getAttribute('content') ?? '';
}

type Params = Record<string, string | number | boolean | undefined | null | readonly string[]>;

/** `/api/x?a=1&b=2`, leaving out undefined and null; arrays repeat the parameter. */
export function apiUrl(path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) query.append(name, v);
    else query.set(name, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

async function request<T>(method: string, url: string, body?: unknown, contentType?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-wga-token'] = token();
  let payload: BodyInit | undefined;
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    payload = body;
    headers['content-type'] = contentType ?? 'application/octet-stream';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, body: payload ?? null, credentials: 'same-origin' });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, errorMessage(parsed) ?? `${method} ${url}: HTTP ${response.status}`, parsed);
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string, params?: Params): Promise<T> => request<T>('GET', apiUrl(path, params)),
  post: <T>(path: string, body?: unknown, params?: Params): Promise<T> => request<T>('POST', apiUrl(path, params), body ?? {}),
  upload: <T>(path: string, file: Blob, params?: Params): Promise<T> => request<T>('POST', apiUrl(path, params), file, 'application/octet-stream'),
  delete: <T>(path: string, params?: Params): Promise<T> => request<T>('DELETE', apiUrl(path, params)),
};
