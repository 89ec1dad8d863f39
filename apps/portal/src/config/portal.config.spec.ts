import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { assertStartsOrNamesTheProblems, readSharedSettings } from '@availability/testing';
import { portalOrigin } from '../session/same-origin.js';
import { PortalConfig } from './portal.config.js';

const REAL = {
  PORTAL_URL: 'https://portal.availability.example',
  PORTAL_COOKIE_SECRET: 'Zq8Lm3Xv7Tn2Kc5Wb9Hf4Jd6Gs1Ra0Pe',
  PORTAL_COOKIE_SECURE: 'true',
  METRICS_TOKEN: 'M4x8Kq2Lp7Zr9Tw3Nv6By1Hc5Jd0Gf2A',
};

describe('PortalConfig', () => {
  it('starts in production with an https address, a real cookie secret and Secure cookies', () => {
    expect(loadConfig(PortalConfig, { NODE_ENV: 'production', ...REAL }).PORT).toBe(3005);
  });

  it('refuses to start in production with anything made for development, naming every setting', () => {
    const start = () => loadConfig(PortalConfig, { NODE_ENV: 'production', METRICS_TOKEN: REAL.METRICS_TOKEN, PORTAL_COOKIE_SECURE: 'false' });
    expect(start).toThrow(/PORTAL_URL: must be an https:\/\/ address/);
    expect(start).toThrow(/PORTAL_COOKIE_SECRET: must not be the development default/);
    expect(start).toThrow(/PORTAL_COOKIE_SECURE: must be on/);
  });

  it('sets the __Host- cookie (Secure) unless told otherwise, in development too', () => {
    expect(loadConfig(PortalConfig, {}).PORTAL_COOKIE_SECURE).toBe(true);
    expect(loadConfig(PortalConfig, { NODE_ENV: 'production', ...REAL, PORTAL_COOKIE_SECURE: undefined }).PORTAL_COOKIE_SECURE).toBe(true);
  });

  it('never shows the secret it refuses', () => {
    const secret = 'short-secret';
    expect(() => loadConfig(PortalConfig, { NODE_ENV: 'production', ...REAL, PORTAL_COOKIE_SECRET: secret })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secret) }));
  });

  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(PortalConfig, (env) => portalOrigin(readSharedSettings(loadConfig(PortalConfig, env)).PORTAL_URL));
  });
});
