// Jest as mutation testing runs it (`npm run test:mutation`): the unit specs of the pure domain modules
// that stryker.config.mjs mutates, nothing that needs PostgreSQL, Redis, NATS or a service process.
import base from './jest.config.js';

export default {
  ...base,
  testMatch: [
    '<rootDir>/libs/webhook-signing/src/**/*.spec.ts',
    '<rootDir>/libs/outbound-http/src/**/*.spec.ts',
    '<rootDir>/apps/contact-directory/src/suggestions/suggestion-validation.spec.ts',
    '<rootDir>/apps/offers-api/src/offers/offer-rules.spec.ts',
    '<rootDir>/apps/webhook-dispatcher/src/domain/**/*.spec.ts',
  ],
};
