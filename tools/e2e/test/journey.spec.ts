import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { TEST_ADMIN_TOKEN } from '@availability/testing';
import { Journey } from '@availability/platform-client';
import { startJourneyPlatform, type JourneyPlatform } from '../src/test-journey.js';

/**
 * The whole journey across every service, each running as its own process, driven over HTTP as
 * users would. The steps and their checks live in src/journey.ts, shared with `npm run demo`.
 */
let platform: JourneyPlatform;
const journey = new Journey(() => platform.environment(TEST_ADMIN_TOKEN));

beforeAll(async () => {
  platform = await startJourneyPlatform();
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

describe('the platform end to end', () => {
  for (const step of journey.steps) {
    it(step.title, async () => {
      await step.act();
      await step.verify();
    }, 30_000);
  }
});
