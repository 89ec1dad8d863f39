import { maxLength, ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';

/**
 * A string longer than this many UTF-16 code units per character its bound allows is refused without
 * counting its characters. class-validator counts characters (a surrogate pair or an emoji with its
 * variation selector is one), so the exact count is still its; this bound only keeps megabytes of
 * text away from its regular expressions. The body validation (service-core) checks the same bound
 * before any validator runs.
 */
export const CODE_UNITS_PER_CHARACTER = 4;

/** Why a list of ids is not valid, in class-validator's own words, or undefined when it is. */
export function idListProblem(value: unknown, property: string, max: number): string | undefined {
  if (!Array.isArray(value)) return `${property} must be an array`;
  const seen = new Set<unknown>();
  for (const id of value) {
    if (typeof id !== 'string') return `each value in ${property} must be a string`;
    if (id.length === 0) return `each value in ${property} should not be empty`;
    if (id.length > max && (id.length > max * CODE_UNITS_PER_CHARACTER || !maxLength(id, max))) {
      return `each value in ${property} must be shorter than or equal to ${max} characters`;
    }
    seen.add(id);
  }
  return seen.size === value.length ? undefined : `${property} must not repeat a value`;
}

/**
 * A list of distinct, non-empty ids of at most `max` characters, checked in one linear pass: the
 * four class-validator rules it stands for (`@IsString`, `@IsNotEmpty` and `@MaxLength` on each
 * element, and uniqueness) cost 7 ms on 10,000 ids, each rule walking the list on its own. Reports
 * the first problem it meets. (class-validator's `@ArrayUnique` is also quadratic, and is forbidden.)
 */
export function IdList(max: number, options?: ValidationOptions & { repeatMessage?: string }): PropertyDecorator {
  const { repeatMessage, ...validationOptions } = options ?? {};
  return ValidateBy(
    {
      name: 'idList',
      constraints: [max],
      validator: {
        validate: (value: unknown, args?: ValidationArguments) => idListProblem(value, args?.property ?? '', max) === undefined,
        defaultMessage: (args?: ValidationArguments) => {
          const problem = idListProblem(args?.value, args?.property ?? '', max) ?? '';
          return repeatMessage && problem.endsWith('must not repeat a value') ? repeatMessage : problem;
        },
      },
    },
    validationOptions,
  );
}
