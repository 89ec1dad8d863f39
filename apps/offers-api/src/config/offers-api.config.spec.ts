import { describe, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { assertStartsOrNamesTheProblems, readSharedSettings } from '@availability/testing';
import { OffersApiConfig } from './offers-api.config.js';

describe('OffersApiConfig', () => {
  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(OffersApiConfig, (env) => readSharedSettings(loadConfig(OffersApiConfig, env)));
  });
});
