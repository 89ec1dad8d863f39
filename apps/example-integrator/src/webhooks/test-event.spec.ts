import { describe, expect, it } from '@jest/globals';
import { isTestEvent } from './test-event.js';

describe('isTestEvent', () => {
  const real = '{"eventId":"e","offerId":"o","workerId":"w","response":"applied","respondedAt":"2026-11-24T09:00:00.000Z"}';

  it('takes either mark: the webhook-test header or "test": true in the body', () => {
    expect(isTestEvent({ 'webhook-test': 'true' }, '')).toBe(true);
    expect(isTestEvent({ 'webhook-test': 'TRUE' }, real)).toBe(true);
    expect(isTestEvent({}, real.replace('}', ',"test":true}'))).toBe(true);
  });

  it('takes anything else for a real webhook', () => {
    expect(isTestEvent({}, real)).toBe(false);
    expect(isTestEvent({}, '')).toBe(false);
    expect(isTestEvent({ 'webhook-test': 'false' }, real)).toBe(false);
    expect(isTestEvent({}, real.replace('}', ',"test":"true"}'))).toBe(false);
    expect(isTestEvent({}, '{not json')).toBe(false);
    expect(isTestEvent({}, '[true]')).toBe(false);
  });
});
