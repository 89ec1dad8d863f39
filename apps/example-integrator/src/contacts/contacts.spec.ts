import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CONTACTS, loadContacts, parseSuggestionRequest, suggest } from './contacts.js';

describe('contact suggestions', () => {
  const contacts = [
    ...DEFAULT_CONTACTS,
    { name: 'Private Person', emailAddress: 'private@example.com', ratings: [], knownBy: ['Boss@Example.com'] },
  ];

  it('filters by name or e-mail, case-insensitively, and by who knows the contact', () => {
    expect(suggest(contacts, { userEmailAddresses: ['someone@example.com'] }).map((c) => c.name)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
    expect(suggest(contacts, { userEmailAddresses: ['boss@example.com'], filter: 'PRIV' })).toEqual([
      { name: 'Private Person', emailAddress: 'private@example.com', ratings: [] },
    ]);
    expect(suggest(contacts, { userEmailAddresses: ['x@example.com'], filter: 'alan@' }).map((c) => c.name)).toEqual(['Alan Turing']);
  });

  it('checks the request body (spec 2.6)', () => {
    expect(parseSuggestionRequest('{"userEmailAddresses":["a@b.c"],"filter":"x"}')).toEqual({ userEmailAddresses: ['a@b.c'], filter: 'x' });
    expect(parseSuggestionRequest('nope')).toBe('the body is not JSON');
    expect(parseSuggestionRequest('{"filter":"x"}')).toMatch(/userEmailAddresses/);
    expect(parseSuggestionRequest('{"userEmailAddresses":[],"filter":3}')).toMatch(/filter/);
  });

  it('loads inline contacts, or the defaults', () => {
    expect(loadContacts('', '')).toBe(DEFAULT_CONTACTS);
    expect(loadContacts('[{"name":"A","emailAddress":"a@x","ratings":[]}]', '')).toHaveLength(1);
    expect(() => loadContacts('{}', '')).toThrow(/array/);
  });
});
