import { describe, expect, it } from '@jest/globals';
import { audienceReply, parseAudienceRequest } from './offer-audience.js';

const ORG = '7b1d6a52-3c4e-4f10-9a55-0d6c2f9e8a01';
const USER = '0f7f7a90-1b2c-4d3e-8f40-5a6b7c8d9e0f';
const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';

describe('parseAudienceRequest', () => {
  it('keeps a well-formed request as it is', () => {
    expect(parseAudienceRequest({ organisationId: ORG, userId: USER, workerIds: [W1, W2] })).toEqual({
      organisationId: ORG,
      userId: USER,
      requested: [W1, W2],
      lookup: [W1, W2],
    });
  });

  it('asks the database only about distinct, lowercase uuids', () => {
    const query = parseAudienceRequest({ organisationId: ORG, userId: USER, workerIds: [W1, 'not-a-uuid', W1, ORG.toUpperCase(), '', W2] });
    expect(query.lookup).toEqual([W1, W2]);
    expect(query.requested).toEqual([W1, 'not-a-uuid', W1, ORG.toUpperCase(), '', W2]);
  });

  it('treats malformed parts as unknown instead of failing', () => {
    expect(parseAudienceRequest(null)).toEqual({ organisationId: undefined, userId: undefined, requested: [], lookup: [] });
    expect(parseAudienceRequest('junk')).toEqual({ organisationId: undefined, userId: undefined, requested: [], lookup: [] });
    expect(parseAudienceRequest({ organisationId: 42, userId: { $ne: 1 }, workerIds: 'W1' })).toEqual({
      organisationId: undefined,
      userId: undefined,
      requested: [],
      lookup: [],
    });
    expect(parseAudienceRequest({ organisationId: ORG, userId: 'user-1', workerIds: [7, null, W1] })).toEqual({
      organisationId: ORG,
      userId: undefined,
      requested: ['7', 'null', W1],
      lookup: [W1],
    });
  });

  it('looks nothing up when the organisation id is not a uuid', () => {
    expect(parseAudienceRequest({ organisationId: 'acme', userId: USER, workerIds: [W1] }).lookup).toEqual([]);
  });
});

describe('audienceReply', () => {
  it('splits the requested ids into named workers and unknown ids, in request order', () => {
    const query = parseAudienceRequest({ organisationId: ORG, userId: USER, workerIds: [W2, 'x', W1] });
    expect(audienceReply(query, true, new Map([[W1, 'Ann'], [W2, 'Bob']]))).toEqual({
      userKnown: true,
      workers: [
        { workerId: W2, name: 'Bob' },
        { workerId: W1, name: 'Ann' },
      ],
      unknownWorkerIds: ['x'],
    });
  });

  it('reports every id unknown when none was found', () => {
    const query = parseAudienceRequest({ organisationId: ORG, userId: USER, workerIds: [W1, W2] });
    expect(audienceReply(query, false, new Map())).toEqual({ userKnown: false, workers: [], unknownWorkerIds: [W1, W2] });
  });

  it('does not take an upper-case spelling for the issued id', () => {
    const query = parseAudienceRequest({ organisationId: ORG, userId: USER, workerIds: [USER.toUpperCase()] });
    expect(query.lookup).toEqual([]);
    expect(audienceReply(query, true, new Map([[USER, 'Ann']])).unknownWorkerIds).toEqual([USER.toUpperCase()]);
  });
});
