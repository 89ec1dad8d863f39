import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { type DtoClass, nestedDtoTypes } from '@availability/contracts';
import { type FieldErrors, ProblemException } from './problem.js';

const lowerCaseProperties = new WeakMap<DtoClass, Map<string, string>>();

/** Lower-case name → the DTO's spelling, read from class-validator's metadata once per class. */
function propertiesOf(dto: DtoClass): Map<string, string> {
  let properties = lowerCaseProperties.get(dto);
  if (!properties) {
    const names = getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((metadata) => metadata.propertyName);
    properties = new Map(names.map((name) => [name.toLowerCase(), name]));
    lowerCaseProperties.set(dto, properties);
  }
  return properties;
}

/**
 * Renames the body's keys to the DTO's spelling, ignoring case (`WorkerIds` → `workerIds`), at every
 * nesting level. Keys the DTO does not know are dropped (tolerant reader). Two keys that differ only
 * in case are ambiguous and reported as a field error rather than one silently winning.
 */
export function canonicalisePropertyNames(value: unknown, dto: DtoClass, path: string, errors: FieldErrors): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const byLowerCase = propertiesOf(dto);
  const nested = nestedDtoTypes(dto);
  const result: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const canonical = byLowerCase.get(key.toLowerCase());
    if (!canonical) continue;
    const fieldPath = path ? `${path}.${canonical}` : canonical;
    if (canonical in result) {
      (errors[fieldPath] ??= []).push(`${canonical} is given more than once (property names are case-insensitive)`);
      continue;
    }
    const nestedType = nested[canonical];
    result[canonical] = nestedType
      ? Array.isArray(raw)
        ? raw.map((item, index) => canonicalisePropertyNames(item, nestedType(), `${fieldPath}[${index}]`, errors))
        : canonicalisePropertyNames(raw, nestedType(), fieldPath, errors)
      : raw;
  }
  return result;
}

/** Flattens class-validator's tree into `{ "events[0].end": ["..."] }`. */
export function toFieldErrors(errors: ValidationError[], parent = '', into: FieldErrors = {}): FieldErrors {
  for (const error of errors) {
    const isIndex = /^\d+$/.test(error.property);
    const path = isIndex ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) (into[path] ??= []).push(...Object.values(error.constraints));
    if (error.children?.length) toFieldErrors(error.children, path, into);
  }
  return into;
}

/** Validates a plain body against a DTO class; throws a 400 problem listing every field error. */
export function validateBody<T extends object>(dto: new () => T, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ProblemException.validation({ body: ['must be a JSON object'] }, 'The request body must be a JSON object.');
  }
  const errors: FieldErrors = {};
  const canonical = canonicalisePropertyNames(body, dto, '', errors);
  const instance = plainToInstance(dto, canonical);
  toFieldErrors(validateSync(instance, { whitelist: true, forbidUnknownValues: true }), '', errors);
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
  return instance;
}

/** Global pipe: every `@Body() dto: SomeDto` goes through validateBody. */
@Injectable()
export class BodyValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const metatype = metadata.metatype as DtoClass | undefined;
    if (metadata.type !== 'body' || !metatype || [Object, Array, String, Number, Boolean].includes(metatype as never)) {
      return value;
    }
    return validateBody(metatype, value);
  }
}
