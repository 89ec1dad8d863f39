import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { CODE_UNITS_PER_CHARACTER, type DtoClass, nestedDtoTypes } from '@availability/contracts';
import { type FieldErrors, ProblemException } from './problem.js';

/** The size bounds a DTO property declares, checked before anything else looks at its value. */
interface Bounds {
  maxItems?: { max: number; message: string };
  maxLength?: { max: number; each: boolean; message: string };
}

interface DtoShape {
  /** Lower-case name → the DTO's spelling. */
  properties: Map<string, string>;
  bounds: Map<string, Bounds>;
}

const shapes = new WeakMap<DtoClass, DtoShape>();

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

function messageOf(metadata: ValidationMetadata, fallback: string): string {
  return typeof metadata.message === 'string' ? metadata.message : fallback;
}

/** Property names and size bounds, read from class-validator's metadata once per class. */
function shapeOf(dto: DtoClass): DtoShape {
  let shape = shapes.get(dto);
  if (shape) return shape;
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  shape = { properties: new Map(), bounds: new Map() };
  for (const metadata of metadatas) {
    const name = metadata.propertyName;
    shape.properties.set(name.toLowerCase(), name);
    const bounds = shape.bounds.get(name) ?? {};
    // IdList bounds each id's length as `@MaxLength(max, { each: true })` would.
    const each = metadata.each === true || metadata.name === 'idList';
    const prefix = each ? 'each value in ' : '';
    if (metadata.name === 'arrayMaxSize') {
      const max = Number(metadata.constraints[0]);
      bounds.maxItems = { max, message: messageOf(metadata, `${name} must contain no more than ${max} elements`) };
    } else if (metadata.name === 'maxLength' || metadata.name === 'idList' || (metadata.name === 'isLength' && metadata.constraints[1] !== undefined)) {
      const max = Number(metadata.constraints[metadata.name === 'isLength' ? 1 : 0]);
      bounds.maxLength = { max, each, message: messageOf(metadata, `${prefix}${name} must be shorter than or equal to ${max} characters`) };
    }
    shape.bounds.set(name, bounds);
  }
  shapes.set(dto, shape);
  return shape;
}

/** A declared bound the raw value is far past, checked in one pass without copying anything. */
function boundProblem(raw: unknown, bounds: Bounds | undefined): string | undefined {
  if (!bounds) return undefined;
  if (bounds.maxItems && Array.isArray(raw) && raw.length > bounds.maxItems.max) return bounds.maxItems.message;
  const maxLength = bounds.maxLength;
  if (maxLength) {
    const units = maxLength.max * CODE_UNITS_PER_CHARACTER;
    const tooLong = (value: unknown) => typeof value === 'string' && value.length > units;
    if (maxLength.each ? Array.isArray(raw) && raw.some(tooLong) : tooLong(raw)) return maxLength.message;
  }
  return undefined;
}

/**
 * The body as an instance of the DTO class, nested DTOs (`@NestedDto`) as instances of theirs, with
 * the keys renamed to the DTO's spelling, ignoring case (`WorkerIds` → `workerIds`), at every
 * nesting level. Keys the DTO does not know are dropped (tolerant reader). Two keys that differ only
 * in case are ambiguous and reported as a field error rather than one silently winning. A value past
 * its property's declared size (`@ArrayMaxSize`, far past `@MaxLength`) is reported here and not
 * looked into, so nothing costlier than a length check ever runs on it.
 */
export function canonicalisePropertyNames(value: unknown, dto: DtoClass, path: string, errors: FieldErrors): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const shape = shapeOf(dto);
  const nested = nestedDtoTypes(dto);
  const result: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const canonical = shape.properties.get(key.toLowerCase());
    if (!canonical) continue;
    const fieldPath = path ? `${path}.${canonical}` : canonical;
    if (canonical in result) {
      (errors[fieldPath] ??= []).push(`${canonical} is given more than once (property names are case-insensitive)`);
      continue;
    }
    const tooBig = boundProblem(raw, shape.bounds.get(canonical));
    if (tooBig) {
      (errors[fieldPath] ??= []).push(tooBig);
      result[canonical] = undefined; // seen: a second spelling of it is still reported as ambiguous
      continue;
    }
    const nestedType = nested[canonical];
    result[canonical] = nestedType
      ? Array.isArray(raw)
        ? raw.map((item, index) => nestedItem(item, nestedType(), `${fieldPath}[${index}]`, errors))
        : canonicalisePropertyNames(raw, nestedType(), fieldPath, errors)
      : raw;
  }
  return Object.assign(new dto(), result);
}

/**
 * An element of a list of nested DTOs must be an object: class-validator's `each` lets an array (or a
 * string) through as if it were one, and the handler then reads fields of something that has none.
 */
function nestedItem(item: unknown, dto: DtoClass, path: string, errors: FieldErrors): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    (errors[path] ??= []).push('must be an object');
    return item;
  }
  return canonicalisePropertyNames(item, dto, path, errors);
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

/**
 * Validates a plain body against a DTO class; throws a 400 problem listing every field error. Sizes
 * and ambiguous names are checked first, in the same linear pass that builds the DTO instance;
 * class-validator only sees a body within every declared bound.
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ProblemException.validation({ body: ['must be a JSON object'] }, 'The request body must be a JSON object.');
  }
  const errors: FieldErrors = {};
  const instance = canonicalisePropertyNames(body, dto, '', errors) as T;
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
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
