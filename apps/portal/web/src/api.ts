/** A problem+json answer from the portal or a service behind it, as the pages show it. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: Record<string, string[]> = {},
  ) {
    super(detail);
  }
}

/** Every page calls the services through the portal: `/api/<service>/…`, with the session cookie. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (response.status === 204 || response.status === 304) return undefined as T;
  const text = await response.text();
  const json = text !== '' && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith('/session')) window.dispatchEvent(new Event('portal:signed-out'));
    throw new ApiProblem(response.status, json?.detail ?? `The request failed (${response.status}).`, json?.errors ?? {});
  }
  return json as T;
}

/** The words to show for a failed call: the problem's detail and each field's messages. */
export function problemText(error: unknown): string {
  if (error instanceof ApiProblem) {
    const fields = Object.entries(error.errors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
    return [error.detail, ...fields].join(' ');
  }
  return error instanceof Error ? error.message : String(error);
}

export type { SignedInPerson } from '../../src/session/signed-in-person';
