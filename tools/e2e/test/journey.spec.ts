import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_ADMIN_TOKEN } from '@availability/testing';
import { Journey } from '@availability/platform-client';
import { DocumentedResponses, ResponseRecorder } from '../src/documented-responses.js';
import { JOURNEY_APPS, JOURNEY_DISPATCHER_ADMIN_TOKEN, startJourneyPlatform, type JourneyPlatform } from '../src/test-journey.js';

/**
 * The whole journey across every service, each running as its own process, driven over HTTP as
 * users would. The steps and their checks live in src/journey.ts, shared with `npm run demo`.
 * Every answer a service gives along the way is then checked against the OpenAPI document it serves.
 */
let platform: JourneyPlatform;
const journey = new Journey(() => platform.environment(TEST_ADMIN_TOKEN));
const recorder = new ResponseRecorder(() => Object.fromEntries(JOURNEY_APPS.map((app) => [app, platform.platform.url(app)])));

beforeAll(async () => {
  platform = await startJourneyPlatform();
  recorder.install();
}, 120_000);

afterAll(async () => {
  recorder.uninstall();
  await platform?.stop();
});

describe('the platform end to end', () => {
  for (const step of journey.steps) {
    it(step.title, async () => {
      await step.act();
      await step.verify();
    }, 30_000);
  }

  it('answered every request of the journey as its service’s OpenAPI document says', async () => {
    // The journey never calls the dispatcher itself; an operator looking at what it delivered does.
    const dispatcher = platform.platform.url('webhook-dispatcher');
    const operator = { authorization: `Bearer ${JOURNEY_DISPATCHER_ADMIN_TOKEN}` };
    const page = (await (await fetch(`${dispatcher}/admin/deliveries?limit=5`, { headers: operator })).json()) as { items: Array<{ id: number; organisationId: string }> };
    await fetch(`${dispatcher}/admin/deliveries/${page.items[0].id}`, { headers: operator });
    await fetch(`${dispatcher}/admin/endpoints/${page.items[0].organisationId}`, { headers: operator });
    await fetch(`${dispatcher}/.well-known/webhook-keys.json`);
    await fetch(`${dispatcher}/admin/deliveries`);
    // Development surfaces (/dev/…) are refused in production and stay out of the documents.
    const seen = (await recorder.seen()).filter((response) => !response.path.startsWith('/dev/'));
    recorder.uninstall();
    const documents = new Map<string, never>();
    for (const app of JOURNEY_APPS) documents.set(app, (await (await fetch(`${platform.platform.url(app)}/openapi.json`)).json()) as never);
    expect(new DocumentedResponses(documents).problems(seen)).toEqual([]);
    // Every service took part, and failures were seen as well as successes.
    expect([...new Set(seen.map((response) => response.app))].sort()).toEqual([...JOURNEY_APPS].sort());
    expect(seen.some((response) => response.status >= 400)).toBe(true);
  }, 60_000);
});
