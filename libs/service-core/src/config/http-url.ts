import { ValidateBy } from 'class-validator';

/**
 * An http:// or https:// address that the URL parser reads, with a host: what every setting naming a
 * service, a page or a collector must be. A pattern alone lets through values the parser refuses
 * (`http://[`, `http://a:99999`), which would fail at the first request instead of at the start.
 */
export function isHttpUrl(value: string, { withoutQueryOrFragment = false } = {}): boolean {
  if (!/^https?:\/\/\S+$/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hostname === '') return false;
  return !withoutQueryOrFragment || !/[?#]/.test(value);
}

/** The setting must be an http(s) URL (isHttpUrl); its problem reads `<SETTING>: fails an http(s) URL`. */
export function IsHttpUrl(options: { withoutQueryOrFragment?: boolean } = {}): PropertyDecorator {
  const name = options.withoutQueryOrFragment ? 'an http(s) URL without query or fragment' : 'an http(s) URL';
  return ValidateBy({ name, validator: { validate: (value: unknown) => typeof value === 'string' && isHttpUrl(value, options) } });
}
