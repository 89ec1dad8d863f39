import { ValidateNested } from 'class-validator';

export type DtoClass = new () => object;

const nestedTypes = new WeakMap<object, Record<string, () => DtoClass>>();

/**
 * Declares a nested DTO (object or array of objects) in one place: validation, instantiation and
 * case-insensitive property matching all learn the element type from this decorator.
 */
export function NestedDto(type: () => DtoClass, options: { each?: boolean } = {}): PropertyDecorator {
  return (target, propertyKey) => {
    const constructor = target.constructor;
    nestedTypes.set(constructor, { ...(nestedTypes.get(constructor) ?? {}), [String(propertyKey)]: type });
    ValidateNested({ each: options.each })(target, propertyKey);
  };
}

/** Property → element type of every `@NestedDto` property of a DTO class. */
export function nestedDtoTypes(dto: DtoClass): Record<string, () => DtoClass> {
  return nestedTypes.get(dto) ?? {};
}
