import { describe, expect, it } from '@jest/globals';
import { bareAnswerPathCost } from '../src/bare-answer-path.js';

// The platform benchmark's second yardstick must measure what it says: every answer recorded,
// published, delivered signed and verified, and the CPU billed to each of its five parts.
describe('the bare answer path', () => {
  it('delivers every answer as a verified webhook and bills each part', async () => {
    const cost = await bareAnswerPathCost(50, 2, new AbortController().signal);

    if (!cost) throw new Error('not measured: an answer was not delivered as a verified webhook, or /proc could not be read');
    expect(Object.keys(cost.perProcess)).toEqual(['answer server', 'postgres', 'nats', 'dispatcher', 'receiver']);
    for (const ms of Object.values(cost.perProcess)) expect(ms).toBeGreaterThan(0);
    expect(cost.totalMs).toBeCloseTo(Object.values(cost.perProcess).reduce((sum, ms) => sum + ms, 0), 2);
  });
});
