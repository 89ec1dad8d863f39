import { readFileSync } from 'node:fs';

/**
 * Readers for what a setting names or holds, read at the start. Their errors say what is wrong and
 * never quote the contents (a key or an account's private key may be in them); `fromSetting` turns
 * them into a ConfigValidationError problem of the setting.
 */

/** The text of the file a setting names (`what` says which file, e.g. `the CA file`). */
export function readSettingFile(path: string, what = 'the file'): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${what} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** JSON a setting holds. JSON.parse's own message quotes the text around the fault, so it is not passed on. */
export function parseSettingJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('is not JSON');
  }
}
