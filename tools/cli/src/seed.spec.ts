import { describe, expect, it } from '@jest/globals';
import { offerHint, type SeedResult, seedPeople, slug } from './seed.js';

const RESULT: SeedResult = {
  organisation: { id: 'org-1', name: 'Acme Staffing', kind: 'agency' },
  apiKey: { id: 'key-1', key: 'apk_secret' },
  users: [{ id: 'user-1', email: 'user1@acme-staffing.example', name: 'Acme Staffing user 1', role: 'admin', portalToken: 'put_example' }],
  workers: [
    { id: 'w1', name: 'one', email: 'worker1@acme-staffing.example', token: 'wkt_1' },
    { id: 'w2', name: 'two', email: 'worker2@acme-staffing.example', token: 'wkt_2' },
    { id: 'w3', name: 'three', email: 'worker3@acme-staffing.example', token: 'wkt_3' },
    { id: 'w4', name: 'four', email: 'worker4@acme-staffing.example', token: 'wkt_4' },
  ],
};

describe('seed helpers', () => {
  it('makes e-mail-safe slugs', () => {
    expect(slug('Acme Staffing')).toBe('acme-staffing');
    expect(slug('  Zürich & Co. Ltd!  ')).toBe('zurich-co-ltd');
    expect(slug('!!!')).toBe('organisation');
  });

  it('plans numbered users (the first an admin) and workers, each with an e-mail address to sign in with', () => {
    expect(seedPeople({ name: 'Acme Staffing', kind: 'agency', users: 2, workers: 2 })).toEqual({
      users: [
        { email: 'user1@acme-staffing.example', name: 'Acme Staffing user 1', role: 'admin' },
        { email: 'user2@acme-staffing.example', name: 'Acme Staffing user 2', role: 'member' },
      ],
      workers: [
        { name: 'Acme Staffing worker 1', email: 'worker1@acme-staffing.example' },
        { name: 'Acme Staffing worker 2', email: 'worker2@acme-staffing.example' },
      ],
    });
  });

  it('shows a POST /offer with the API key, the first user and up to three workers', () => {
    const hint = offerHint(RESULT, 'http://localhost:3000');
    expect(hint).toContain('curl -i -X POST http://localhost:3000/offer');
    expect(hint).toContain("Authorization: Bearer apk_secret");
    const body = JSON.parse(/-d '(.*)'/.exec(hint)?.[1] ?? '{}');
    expect(body.createdByUserId).toBe('user-1');
    expect(body.workerIds).toEqual(['w1', 'w2', 'w3']);
    expect(body.events.length).toBeGreaterThan(0);
    expect(hint).not.toContain('Note:');
  });

  it('says how to sign in as a seeded worker: their address at the worker sign-in, the link from the mail catcher', () => {
    const hint = offerHint(RESULT, 'http://localhost:3000', 'http://localhost:3005');
    expect(hint).toContain('http://localhost:3005/worker/sign-in');
    expect(hint).toContain('worker1@acme-staffing.example');
    expect(hint).toMatch(/mail catcher/);
  });

  it('says what is missing when there are no users or workers', () => {
    const hint = offerHint({ ...RESULT, users: [], workers: [] }, 'http://x');
    expect(hint).toMatch(/--users 1/);
    expect(hint).toMatch(/--workers 1/);
  });
});
