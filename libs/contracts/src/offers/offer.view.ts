import { ApiProperty } from '@nestjs/swagger';
import type { OfferTimeSlot } from '../events/offer-events.js';
import { RecipientConfirmation, RecipientResponse } from './offer-values.js';

/** A time slot as views show it (spec 2.2). */
export class OfferTimeSlotView {
  @ApiProperty({ example: '2026-12-01T08:00:00.000Z' })
  start: string;

  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' })
  end: string;
}

/** Spec 2.4. */
export class RecipientView {
  @ApiProperty({ type: 'integer', description: 'Recipient entry id', example: 1042 })
  id: number;

  @ApiProperty({ example: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20' })
  workerId: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;

  @ApiProperty({ enum: Object.values(RecipientResponse) })
  response: string;

  @ApiProperty({ enum: Object.values(RecipientConfirmation), description: 'Empty until the offer is complete or withdrawn' })
  confirmation: string;
}

/** Spec 2.3, returned by `GET /offer/{id}`. `widthdrawn` is spelled exactly so. */
export class OfferView {
  @ApiProperty({ example: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b' })
  id: string;

  @ApiProperty({ example: 'Night pickers' })
  title: string;

  @ApiProperty({ example: '' })
  details: string;

  @ApiProperty({ description: 'Ended (the last slot is over), completed or withdrawn' })
  isHistoric: boolean;

  @ApiProperty({ description: 'Spelled as the spec spells it' })
  widthdrawn: boolean;

  @ApiProperty()
  complete: boolean;

  @ApiProperty({ example: '' })
  locationPlaceId: string;

  @ApiProperty({ example: '2026-11-24T10:15:02.000Z' })
  createdAt: string;

  @ApiProperty({ type: [OfferTimeSlotView] })
  events: OfferTimeSlot[];

  @ApiProperty({ type: [RecipientView] })
  recipients: RecipientView[];
}

/** One offer as the worker app lists it: the offer plus this worker's own entry. */
export class WorkerOfferView {
  @ApiProperty({ example: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b' })
  id: string;

  @ApiProperty({
    format: 'uuid',
    example: '8333fa9f-0801-4965-8862-bab6bda8a17c',
    description: 'The sending organisation; its name is the directory’s (a worker’s session names the organisations they work with)',
  })
  organisationId: string;

  @ApiProperty({ example: 'Night pickers' })
  title: string;

  @ApiProperty({ example: '' })
  details: string;

  @ApiProperty({ example: '' })
  locationPlaceId: string;

  @ApiProperty()
  isHistoric: boolean;

  @ApiProperty({ description: 'Spelled as the spec spells it' })
  widthdrawn: boolean;

  @ApiProperty()
  complete: boolean;

  @ApiProperty({ example: '2026-11-24T10:15:02.000Z' })
  createdAt: string;

  @ApiProperty({ type: [OfferTimeSlotView] })
  events: OfferTimeSlot[];

  @ApiProperty({ enum: Object.values(RecipientResponse), description: 'My response' })
  response: string;

  @ApiProperty({ enum: Object.values(RecipientConfirmation) })
  confirmation: string;
}

/** A page of the worker app's offers, newest first. */
export class WorkerOffersPage {
  @ApiProperty({ type: [WorkerOfferView] })
  offers: WorkerOfferView[];

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `before` for the next page; null on the last' })
  nextCursor: string | null;
}
