import { describe, expect, it } from '@jest/globals';
import { isSameOriginRequest } from './same-origin.js';

const PORTAL = 'https://portal.example';

describe('isSameOriginRequest', () => {
  it('lets reads through from anywhere: they change nothing', () => {
    expect(isSameOriginRequest('GET', { origin: 'https://evil.example' }, PORTAL)).toBe(true);
  });

  it('lets a change through only from the portal’s own pages', () => {
    expect(isSameOriginRequest('POST', { origin: PORTAL }, PORTAL)).toBe(true);
    expect(isSameOriginRequest('PUT', { origin: 'https://evil.example' }, PORTAL)).toBe(false);
    expect(isSameOriginRequest('DELETE', { origin: 'https://portal.example.evil.example' }, PORTAL)).toBe(false);
    expect(isSameOriginRequest('POST', { origin: 'null' }, PORTAL)).toBe(false);
  });

  it('falls back to Sec-Fetch-Site, and refuses a change that shows neither', () => {
    expect(isSameOriginRequest('POST', { 'sec-fetch-site': 'same-origin' }, PORTAL)).toBe(true);
    expect(isSameOriginRequest('POST', { 'sec-fetch-site': 'cross-site' }, PORTAL)).toBe(false);
    expect(isSameOriginRequest('POST', {}, PORTAL)).toBe(false);
  });
});
