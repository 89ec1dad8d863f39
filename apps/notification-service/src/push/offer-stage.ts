import type { PushKind } from './push-transport.js';

/** Where an offer stands for one worker. `answered` (2) is the worker's own answer: the app shows it from the API, it is never pushed. */
export type OfferStage = 'created' | 'answered' | 'final';

export const STAGE_ORDER: Readonly<Record<OfferStage, number>> = { created: 1, answered: 2, final: 3 };

const STAGE_OF_KIND: Readonly<Record<PushKind, OfferStage>> = {
  'offer.created': 'created',
  'offer.successful': 'final',
  'offer.unsuccessful': 'final',
  'offer.withdrawn': 'final',
};

/** The highest stage recorded for an (offer, worker), and the event that recorded it. */
export interface RecordedStage {
  stageOrder: number;
  eventId: string;
}

/**
 * Whether a push about an offer may still be shown to a worker, given what was already recorded for
 * them: only a higher stage, or the pushes of the event that recorded the stage (its other devices,
 * its retries). So a late push never contradicts a later one, and of two final pushes (completed and
 * withdrawn cannot both be true) the first recorded wins. PushRepository.claimStage applies the same
 * rule in one statement, so two instances cannot both win.
 */
export class OfferStageRule {
  stage(kind: PushKind): OfferStage {
    return STAGE_OF_KIND[kind];
  }

  stageOrder(kind: PushKind): number {
    return STAGE_ORDER[this.stage(kind)];
  }

  /** True: send, and record `candidate` as the stage; false: the push is superseded. */
  wins(recorded: RecordedStage | undefined, candidate: RecordedStage): boolean {
    if (!recorded) return true;
    return recorded.stageOrder < candidate.stageOrder || recorded.eventId === candidate.eventId;
  }
}
