import { fromSetting, parseSettingJson, readSettingFile } from '@availability/service-core';

/** Spec 2.8. */
export interface Rating {
  rating: number;
  ratingProvider: string;
  lastWorked: string;
}

/** Spec 2.7, plus `knownBy`: portal users (e-mail addresses) this contact is suggested to; absent = everyone. */
export interface SeededContact {
  name: string;
  emailAddress: string;
  profileImageUrl?: string;
  ratings: Rating[];
  knownBy?: string[];
}

export type ContactSuggestion = Omit<SeededContact, 'knownBy'>;

export const DEFAULT_CONTACTS: SeededContact[] = [
  {
    name: 'Ada Lovelace',
    emailAddress: 'ada@example.com',
    profileImageUrl: 'https://integrator.example/images/ada.png',
    ratings: [{ rating: 5, ratingProvider: 'Warehouse North', lastWorked: '2026-10-01T00:00:00Z' }],
  },
  {
    name: 'Grace Hopper',
    emailAddress: 'grace@example.com',
    ratings: [
      { rating: 4, ratingProvider: 'Warehouse North', lastWorked: '2026-09-12T00:00:00Z' },
      { rating: 5, ratingProvider: 'Depot South', lastWorked: '2026-08-30T00:00:00Z' },
    ],
  },
  { name: 'Alan Turing', emailAddress: 'alan@example.com', ratings: [] },
];

/** Contacts from INTEGRATOR_CONTACTS (inline JSON), else INTEGRATOR_CONTACTS_FILE, else the defaults above. */
export function loadContacts(inline: string, file: string): SeededContact[] {
  if (inline === '' && file === '') return DEFAULT_CONTACTS;
  return fromSetting(() => {
    const parsed = parseSettingJson(inline !== '' ? inline : readSettingFile(file));
    if (!Array.isArray(parsed)) throw new Error('must be a JSON array of contacts');
    return parsed as SeededContact[];
  }, inline !== '' ? 'INTEGRATOR_CONTACTS' : 'INTEGRATOR_CONTACTS_FILE');
}

/** Spec 2.6 request body. */
export interface SuggestionRequest {
  filter?: string;
  userEmailAddresses: string[];
}

/** Parses and checks a spec 2.6 body; returns the problem as text when it is not one. */
export function parseSuggestionRequest(raw: string): SuggestionRequest | string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'the body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object';
  const { filter, userEmailAddresses } = body as Record<string, unknown>;
  if (!Array.isArray(userEmailAddresses) || !userEmailAddresses.every((a) => typeof a === 'string')) {
    return 'userEmailAddresses must be an array of strings';
  }
  if (filter !== undefined && filter !== null && typeof filter !== 'string') return 'filter must be a string';
  return { filter: typeof filter === 'string' ? filter : undefined, userEmailAddresses };
}

/**
 * The suggestions for a hirer: contacts known to any of the hirer's addresses whose name or e-mail
 * contains the filter (case-insensitive). How to choose is up to each integrator (spec 1.6).
 */
export function suggest(contacts: SeededContact[], request: SuggestionRequest): ContactSuggestion[] {
  const users = new Set(request.userEmailAddresses.map((a) => a.toLowerCase()));
  const filter = request.filter?.trim().toLowerCase() ?? '';
  return contacts
    .filter((c) => !c.knownBy || c.knownBy.some((a) => users.has(a.toLowerCase())))
    .filter((c) => filter === '' || c.name.toLowerCase().includes(filter) || c.emailAddress.toLowerCase().includes(filter))
    .map(({ knownBy: _knownBy, ...suggestion }) => suggestion);
}
