import { ValidateBy } from 'class-validator';

/**
 * Whether the URL parser reads `value` as an address of one of `protocols` (`'smtp:'`), naming a host.
 * A pattern alone lets through values the parser refuses (`http://[`, `http://a:99999`), which would
 * fail at the first connection instead of at the start.
 */
export function isUrlWithHost(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An http:// or https:// address with a host (isUrlWithHost): what every setting naming a service, a page or a collector must be. */
export function isHttpUrl(value: string, { withoutQueryOrFragment = false } = {}): boolean {
  if (!/^https?:\/\/\S+$/.test(value) || !isUrlWithHost(value, ['http:', 'https:'])) return false;
  return !withoutQueryOrFragment || !/[?#]/.test(value);
}

/** The setting must be an http(s) URL (isHttpUrl); its problem reads `<SETTING>: fails an http(s) URL`. */
export function IsHttpUrl(options: { withoutQueryOrFragment?: boolean } = {}): PropertyDecorator {
  const name = options.withoutQueryOrFragment ? 'an http(s) URL without query or fragment' : 'an http(s) URL';
  return ValidateBy({ name, validator: { validate: (value: unknown) => typeof value === 'string' && isHttpUrl(value, options) } });
}
