import { describe, expect, it } from '@jest/globals';
import { logFormat, serviceLogLine } from './service-log.js';

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 24, 9, 30, 5, 120), pid: 7, hostname: 'vm', name: 'offers-api', ...fields });

describe('npm start output', () => {
  it('is readable on a terminal, JSON elsewhere, and LOG_FORMAT chooses', () => {
    expect(logFormat({}, true)).toBe('pretty');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });

  it('shows a person one line per entry: time, level, service, context and message', () => {
    const shown = serviceLogLine('pretty')('offers-api', line({ context: 'OutboxRelay', msg: 'publishing failed (1x): timeout' }));
    expect(shown).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: offers-api \[OutboxRelay\]: publishing failed \(1x\): timeout$/);
    expect(shown).not.toContain('hostname');
  });

  it('shows a request line with its method, URL, status and time', () => {
    const request = { req: { id: 'abc', method: 'GET', url: '/offer/42' }, statusCode: 404, responseTime: 8, msg: 'request completed' };
    const shown = serviceLogLine('pretty')('offers-api', line(request));
    expect(shown).toMatch(/INFO: offers-api: request completed: GET \/offer\/42 404 in 8 ms$/);
  });

  it('leaves out Nest’s start-up listing, and passes other lines through labelled', () => {
    const format = serviceLogLine('pretty');
    expect(format('offers-api', line({ context: 'RouterExplorer', msg: 'Mapped {/offer, POST} route' }))).toBeUndefined();
    expect(format('offers-api', line({ context: 'InstanceLoader', msg: 'AuthModule dependencies initialized' }))).toBeUndefined();
    expect(format('offers-api', 'node: warning')).toBe('[offers-api] node: warning');
  });

  it('keeps the services’ own JSON lines, unchanged, when not for a person', () => {
    const raw = line({ context: 'RouterExplorer', msg: 'Mapped {/offer, POST} route' });
    expect(serviceLogLine('json')('offers-api', raw)).toBe(raw);
  });
});
