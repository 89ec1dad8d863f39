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

/** A message as a sentence: "must be …" → "Must be …." */
function sentence(message: string): string {
  const text = message.trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/**
 * The words to show for a failed call: the problem's detail when it already says each field's
 * message (a single-field problem repeats it), else each field's messages, once each. Field names
 * (`invitations[0].name`) are the API's, not the person's: never shown.
 */
export function problemText(error: unknown): string {
  if (error instanceof ApiProblem) {
    const messages = [...new Set(Object.values(error.errors).flat())];
    const unsaid = messages.filter((message) => !error.detail.includes(message));
    return unsaid.length === 0 ? sentence(error.detail) : unsaid.map(sentence).join(' ');
  }
  return error instanceof Error ? error.message : String(error);
}

export type { SignedInPerson } from '../../src/session/signed-in-person';
