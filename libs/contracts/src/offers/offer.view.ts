import type { OfferTimeSlot } from '../events/offer-events.js';

/** Spec 2.4. */
export interface RecipientView {
  id: number;
  workerId: string;
  name: string;
  response: string;
  confirmation: string;
}

/** Spec 2.3, returned by `GET /offer/{id}`. `widthdrawn` is spelled exactly so. */
export interface OfferView {
  id: string;
  title: string;
  details: string;
  isHistoric: boolean;
  widthdrawn: boolean;
  complete: boolean;
  locationPlaceId: string;
  createdAt: string;
  events: OfferTimeSlot[];
  recipients: RecipientView[];
}

/** One offer as the worker app lists it: the offer plus this worker's own entry. */
export interface WorkerOfferView {
  id: string;
  title: string;
  details: string;
  locationPlaceId: string;
  isHistoric: boolean;
  widthdrawn: boolean;
  complete: boolean;
  createdAt: string;
  events: OfferTimeSlot[];
  response: string;
  confirmation: string;
}
