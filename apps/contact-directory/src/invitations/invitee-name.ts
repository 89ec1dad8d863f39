import { ValidateBy, type ValidationOptions } from 'class-validator';

/** Most characters of an invited person's name, as given and once tidied. */
export const MAX_INVITEE_NAME_LENGTH = 100;

/**
 * What a person's name may hold: letters and combining marks of any script, spaces, apostrophes,
 * hyphens, commas and full stops. No digits, no `@ : / < > &`, no control or formatting characters
 * (which include bidi overrides and zero-width characters).
 */
const NAME_CHARACTERS = /^[\p{L}\p{M} '’\-‐,.]+$/u;
/** A full stop not followed by a space or the end joins two words as a domain or address does (`example.com`). */
const DOTTED = /\.(?=[^ ])/u;
const ADDRESS_LIKE = /[@:/\\]/u;
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/u;
/** More marks on one letter than any script writes: text that spills over the lines around it. */
const STACKED_MARKS = /\p{M}{4,}/u;

/**
 * The name as stored and e-mailed: NFKC (full-width and other look-alike forms become the plain
 * characters a mail client would read, `ｅｘａｍｐｌｅ．ｃｏｍ` → `example.com`, before the rules
 * look at them; other spaces become plain ones), runs of spaces as one, trimmed.
 */
export function tidyInviteeName(raw: string): string {
  // Only spaces are trimmed: a line break or other invisible character at either end is refused, not hidden.
  return raw.normalize('NFKC').replace(/ {2,}/g, ' ').replace(/^ | $/g, '');
}

/**
 * Why `raw` is not a plain person's name, or undefined. The invitation e-mail goes to anyone an
 * inviter names, with this as the only text of theirs in it: nothing in it may read as a link, an
 * address or markup, or hide or reorder text.
 */
export function inviteeNameProblem(raw: string): string | undefined {
  const name = tidyInviteeName(raw);
  if (name === '') return 'name must not be blank';
  if ([...name].length > MAX_INVITEE_NAME_LENGTH) return `name must be at most ${MAX_INVITEE_NAME_LENGTH} characters`;
  if (INVISIBLE.test(name)) return 'name must not contain control, formatting or line-break characters';
  if (ADDRESS_LIKE.test(name) || DOTTED.test(name)) return 'name must not contain a web or e-mail address (a full stop is followed by a space, as in "J. Smith")';
  if (!NAME_CHARACTERS.test(name)) return "name must be a person's name: letters, spaces and ' - , . only";
  if (STACKED_MARKS.test(name)) return 'name must not stack more than three marks on a letter';
  if (!/\p{L}/u.test(name)) return 'name must contain a letter';
  return undefined;
}

/** class-validator rule: a plain person's name (inviteeNameProblem), its message the reason. */
export function IsInviteeName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInviteeName',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && inviteeNameProblem(value) === undefined,
        defaultMessage: (args) => (typeof args?.value === 'string' ? inviteeNameProblem(args.value) : undefined) ?? 'name must be a string',
      },
    },
    options,
  );
}
