import { describe, expect, it } from '@jest/globals';
import { isHttpUrl } from './http-url.js';

describe('isHttpUrl', () => {
  it('takes http and https addresses with a host, port and path', () => {
    for (const value of ['http://localhost:3005', 'https://portal.availability.example', 'http://127.0.0.1:3001/', 'http://[::1]:4318/base', 'https://user@host.example/x?y=1#z']) {
      expect(isHttpUrl(value)).toBe(true);
    }
  });

  it('refuses what the URL parser refuses, though a pattern would take it', () => {
    for (const value of ['http://[', 'http://[::1', 'http://a:99999', 'http://%zz', 'http://@@', 'http://#', 'https://a b', 'ftp://host.example', 'localhost:3005', '']) {
      expect(isHttpUrl(value)).toBe(false);
    }
  });

  it('refuses a query or fragment where the address is a base others are joined to', () => {
    expect(isHttpUrl('https://portal.example/?next=1', { withoutQueryOrFragment: true })).toBe(false);
    expect(isHttpUrl('https://portal.example/#top', { withoutQueryOrFragment: true })).toBe(false);
    expect(isHttpUrl('https://portal.example/base', { withoutQueryOrFragment: true })).toBe(true);
  });
});
