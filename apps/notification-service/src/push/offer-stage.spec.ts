import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OfferStageRule, type RecordedStage } from './offer-stage.js';
import type { PushKind } from './push-transport.js';

const rule = new OfferStageRule();

describe('OfferStageRule', () => {
  it('orders an offer created before its final pushes', () => {
    expect(rule.stageOrder('offer.created')).toBe(1);
    for (const kind of ['offer.successful', 'offer.unsuccessful', 'offer.withdrawn'] as const) {
      expect(rule.stage(kind)).toBe('final');
      expect(rule.stageOrder(kind)).toBe(3);
    }
  });

  it('sends the first push, a higher stage, and the recording event again; never a lower stage or a second final', () => {
    const created = { stageOrder: 1, eventId: 'c' };
    const completed = { stageOrder: 3, eventId: 'f1' };
    expect(rule.wins(undefined, created)).toBe(true);
    expect(rule.wins(created, completed)).toBe(true);
    expect(rule.wins(completed, completed)).toBe(true); // its other devices, its retries
    expect(rule.wins(completed, created)).toBe(false);
    expect(rule.wins(completed, { stageOrder: 3, eventId: 'f2' })).toBe(false);
  });

  it('any interleaving and duplication of one worker’s pushes about one offer sends stages strictly increasing, ending at the highest', () => {
    const push = fc.record({ eventId: fc.constantFrom('created', 'completed', 'withdrawn') });
    const kindOf: Record<string, PushKind> = { created: 'offer.created', completed: 'offer.successful', withdrawn: 'offer.withdrawn' };
    fc.assert(
      fc.property(fc.array(push, { minLength: 1, maxLength: 30 }), (pushes) => {
        let recorded: RecordedStage | undefined;
        const delivered = new Set<string>();
        const sent: number[] = [];
        for (const { eventId } of pushes) {
          // One event reaches one device once (the delivery claim); the rule decides between events.
          if (delivered.has(eventId)) continue;
          const candidate = { stageOrder: rule.stageOrder(kindOf[eventId]), eventId };
          if (!rule.wins(recorded, candidate)) continue;
          recorded = candidate;
          delivered.add(eventId);
          sent.push(candidate.stageOrder);
        }
        for (let i = 1; i < sent.length; i++) expect(sent[i]).toBeGreaterThan(sent[i - 1]);
        expect(sent[sent.length - 1]).toBe(Math.max(...pushes.map((p) => rule.stageOrder(kindOf[p.eventId]))));
      }),
    );
  });
});
