import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Journey } from '@availability/platform-client';
import { TEST_ADMIN_TOKEN } from '@availability/testing';
import { JOURNEY_APPS, type JourneyPlatform, startJourneyPlatform } from '../src/test-journey.js';

/**
 * The journey again, with each service stopped and started in turn while it runs: either restarted
 * before a step that needs it, or stopped while a step acts so that what the step causes must wait
 * for it (the event in JetStream, the job in Redis) and arrive once it is back. Nothing may be lost
 * or arrive twice; every step checks its outcome as in the plain journey.
 */
let platform: JourneyPlatform;
const journey = new Journey(() => platform.environment(TEST_ADMIN_TOKEN));

interface Bounce {
  /** Stopped and started again before the step acts. */
  restartBefore?: string;
  /** Stopped while the step acts, started again before its outcome is checked. */
  downWhileActing?: string;
}

// Keyed by step title, so reordering the journey cannot silently move a bounce to another step.
const BOUNCES: Record<string, Bounce> = {
  'An organisation joins: a sender, three workers and an API key': { restartBefore: 'contact-directory' },
  // The integrator keeps what it received in memory: it is restarted before any webhook is due.
  'The integrator registers its base URL; the platform calls /test and /test/auth': { restartBefore: 'example-integrator' },
  'A sender offers work to the three workers; each phone gets a push': { downWhileActing: 'notification-service' },
  'Workers apply and reject; the integrator receives signed Worker Offer Response webhooks': { downWhileActing: 'webhook-dispatcher' },
  'The sender completes the offer; each worker is told whether they got the work': { restartBefore: 'offers-api' },
  'A worker adds the organisation as a contact; the integrator is told': { downWhileActing: 'webhook-dispatcher' },
  'A hirer searches contact suggestions and invites one; the invitation is e-mailed': { restartBefore: 'contact-directory' },
};

beforeAll(async () => {
  platform = await startJourneyPlatform();
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

describe('the journey survives every service being stopped and started', () => {
  it('bounces every service at least once', () => {
    const titles = journey.steps.map((step) => step.title);
    for (const title of Object.keys(BOUNCES)) expect(titles).toContain(title);
    const bounced = new Set(Object.values(BOUNCES).flatMap((b) => [b.restartBefore, b.downWhileActing]).filter(Boolean));
    expect([...bounced].sort()).toEqual([...JOURNEY_APPS].sort());
  });

  for (const step of journey.steps) {
    const bounce = BOUNCES[step.title] ?? {};
    const how = bounce.restartBefore
      ? ` (after restarting ${bounce.restartBefore})`
      : bounce.downWhileActing
        ? ` (with ${bounce.downWhileActing} stopped meanwhile)`
        : '';
    it(`${step.title}${how}`, async () => {
      const services = platform.platform.services;
      if (bounce.restartBefore) await services[bounce.restartBefore].restart();
      if (bounce.downWhileActing) await services[bounce.downWhileActing].stop();
      try {
        await step.act();
      } finally {
        if (bounce.downWhileActing) await services[bounce.downWhileActing].start();
      }
      await step.verify();
    }, 60_000);
  }
});
