import { OfferStageRule } from './offer-stage.js';
import type { PushKind } from './push-transport.js';

/** The offer a notification is about, as the events carry it. */
export interface OfferRef {
  offerId: string;
  organisationId: string;
  title: string;
}

export interface NotificationContent {
  kind: PushKind;
  title: string;
  body: string;
  data: Record<string, string>;
}

const MAX_TITLE_IN_BODY = 120;
const stages = new OfferStageRule();

function quoted(title: string): string {
  const trimmed = title.trim();
  return `“${trimmed.length > MAX_TITLE_IN_BODY ? `${trimmed.slice(0, MAX_TITLE_IN_BODY - 1)}…` : trimmed}”`;
}

/**
 * What the worker reads on the lock screen for each kind, and the data the app opens the offer with;
 * `stage` and `stageOrder` let the app keep the latest of an offer's notifications (OfferStageRule).
 */
export function notificationContent(kind: PushKind, offer: OfferRef, eventId: string): NotificationContent {
  const stageOrder = String(stages.stageOrder(kind));
  const data = { kind, offerId: offer.offerId, organisationId: offer.organisationId, eventId, stage: stages.stage(kind), stageOrder };
  switch (kind) {
    case 'offer.created':
      return { kind, title: 'New offer of work', body: `${quoted(offer.title)}: tap to apply or reject.`, data };
    case 'offer.successful':
      return { kind, title: 'You got the work', body: `You were successful for ${quoted(offer.title)}.`, data };
    case 'offer.unsuccessful':
      return { kind, title: 'Offer filled', body: `You were not selected for ${quoted(offer.title)}.`, data };
    case 'offer.withdrawn':
      return { kind, title: 'Offer withdrawn', body: `${quoted(offer.title)} was withdrawn by the sender.`, data };
  }
}

/** One key per offer: a later push about the offer replaces an earlier one on the device, shown or undelivered. */
export function collapseKey(offerId: string): string {
  return offerId;
}
