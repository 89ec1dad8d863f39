import { X509Certificate } from 'node:crypto';
import { fromSetting } from './load-config.js';
import { readSettingFile } from './setting-files.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The PEM text of a file of CA certificates trusted besides the public CAs (a private deployment's
 * own CA): for https integrators (OUTBOUND_CA_FILE) and for the platform's own NATS, Redis and
 * PostgreSQL servers. Read once at start-up; a file that cannot serve stops the start with a plain
 * reason rather than failing every connection later.
 */
export function readCaFile(path: string): string {
  const text = readSettingFile(path, 'the CA file');
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error('the CA file holds no PEM certificate');
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch {
      throw new Error(`certificate ${index + 1} of the CA file is not a valid certificate`);
    }
  });
  return text;
}

/**
 * The CA certificates of the file a setting names, read; undefined when the setting is empty. A file
 * that cannot serve is a problem of that setting, and stops the start like any other.
 */
export function caFileOf<K extends string>(config: Record<K, string>, setting: K): string | undefined {
  const path = config[setting];
  return path === '' ? undefined : fromSetting(() => readCaFile(path), setting);
}
