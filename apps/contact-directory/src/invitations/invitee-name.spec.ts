import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { linksIn } from '@availability/testing';
import { inviteeNameProblem, MAX_INVITEE_NAME_LENGTH, tidyInviteeName } from './invitee-name.js';

const accepted = (name: string) => inviteeNameProblem(name) === undefined;

/** Letters of several scripts, as people's names are written. */
const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéøßÆłŞğçñüÖ李小龍田中ДмитрийΑλέξηςمحمدדודसतकम'.split(''));
const word = fc.string({ unit: letter, minLength: 1, maxLength: 12 });
/** A plain name: words, now and then an initial with its full stop, an apostrophe or a hyphen inside. */
const plainName = fc
  .array(fc.oneof(word, word.map((w) => `${w[0]}.`), fc.tuple(word, fc.constantFrom("'", '’', '-'), word).map((parts) => parts.join(''))), { minLength: 1, maxLength: 5 })
  .map((words) => words.join(' '))
  .filter((name) => [...name].length <= MAX_INVITEE_NAME_LENGTH);

/** What spammers put in names: web and e-mail addresses, bare domains, IP addresses. */
const address = fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.domain(), fc.emailAddress(), fc.ipV4(), fc.domain().map((d) => `www.${d}`));
/** The same text in look-alike forms mail clients read the same way (full-width letters and stops). */
const fullWidth = (text: string) => text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

/** Characters near the edge of the rule: name punctuation, address punctuation, digits, spaces, invisible ones. */
const edgy = fc.string({
  unit: fc.oneof(letter, fc.constantFrom(' ', ' ', '.', '.', ',', "'", '-', '@', ':', '/', '\\', '0', '7', '．', '。', '<', '&', '\u00A0', '\u3000', '\u200B', '\u202E', '\u2066', '\n', '\t', '\u0301')),
  maxLength: 40,
});

describe('the name of an invited person', () => {
  it('takes plain names in any script, tidied only in their spacing', () => {
    fc.assert(
      fc.property(plainName, fc.constantFrom('', ' ', '  '), fc.constantFrom('', ' ', '\u00A0'), (name, before, after) => {
        expect(inviteeNameProblem(`${before}${name.replace(/ /g, '  ')}${after}`)).toBeUndefined();
        expect(tidyInviteeName(`${before}${name.replace(/ /g, '  ')}${after}`)).toBe(name.normalize('NFKC'));
      }),
    );
  });

  it('refuses any name holding a web or e-mail address, a domain or an IP address, in plain or full-width characters', () => {
    fc.assert(
      fc.property(fc.option(plainName), address, fc.option(plainName), fc.boolean(), (before, link, after, wide) => {
        const text = wide ? fullWidth(link) : link;
        const name = [before, text, after].filter((part) => part !== null).join(' ');
        expect(inviteeNameProblem(name)).toMatch(/web or e-mail address|letters, spaces|at most/);
      }),
    );
  });

  it('refuses control, formatting and bidi characters anywhere', () => {
    const invisible = fc.constantFrom('\u0000', '\u0007', '\n', '\r', '\t', '\u007F', '\u0085', '\u200B', '\u200E', '\u202A', '\u202E', '\u2066', '\u2069', '\u2028', '\uFEFF', '\u00AD', '\uE000');
    fc.assert(
      fc.property(plainName, invisible, fc.nat(), (name, character, at) => {
        const index = 1 + (at % Math.max(1, name.length - 1));
        expect(inviteeNameProblem(`${name.slice(0, index)}${character}${name.slice(index)}`)).toBeDefined();
      }),
    );
  });

  it('whatever it takes is bounded, holds no link, address, markup or invisible character, and is tidy', () => {
    fc.assert(
      fc.property(fc.oneof(edgy, fc.string({ unit: 'grapheme', maxLength: 40 }), plainName), (raw) => {
        if (!accepted(raw)) return;
        const name = tidyInviteeName(raw);
        expect([...name].length).toBeLessThanOrEqual(MAX_INVITEE_NAME_LENGTH);
        expect(name).not.toMatch(/[\p{C}\p{N}@:/\\<>&]|\.[^ ]|^ | $| {2}/u);
        expect(linksIn(name)).toEqual([]);
        expect(tidyInviteeName(name)).toBe(name);
        expect(accepted(name)).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it('is at most a hundred characters, and not blank', () => {
    expect(inviteeNameProblem('a'.repeat(MAX_INVITEE_NAME_LENGTH))).toBeUndefined();
    expect(inviteeNameProblem('a'.repeat(MAX_INVITEE_NAME_LENGTH + 1))).toBe('name must be at most 100 characters');
    expect(inviteeNameProblem('李'.repeat(MAX_INVITEE_NAME_LENGTH))).toBeUndefined();
    expect(inviteeNameProblem(' \u00A0 ')).toBe('name must not be blank');
    expect(inviteeNameProblem("'-")).toBe('name must contain a letter');
  });

  it('says why a name is refused', () => {
    expect(inviteeNameProblem('Visit example.com')).toMatch(/web or e-mail address/);
    expect(inviteeNameProblem('J.R. Smith')).toMatch(/as in "J\. Smith"/);
    expect(inviteeNameProblem('Ann <b>')).toMatch(/letters, spaces/);
    expect(inviteeNameProblem('Call 0800 123')).toMatch(/letters, spaces/);
    expect(inviteeNameProblem('Ann\u202Emoc.live')).toMatch(/control, formatting/);
    expect(inviteeNameProblem(`Zalgo${'\u0301'.repeat(6)}`)).toMatch(/three marks/);
    expect(inviteeNameProblem('Nguyễn Thị Minh Khai')).toBeUndefined();
    expect(inviteeNameProblem('Smith Jr.')).toBeUndefined();
  });
});
