import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { OfferView, RecipientConfirmation, RecipientResponse } from '@availability/contracts';
import { PORTAL_OFFER_STATUSES, type PortalOfferStatus } from './portal-offer-query.js';

const STATUS_DESCRIPTION =
  'open: workers may still answer; ended: the last slot is over, neither completed nor withdrawn; complete; withdrawn';

/** How the recipients of an offer have answered so far. */
export class OfferAnswerCountsView {
  @ApiProperty({ type: 'integer', description: 'Recipients whose answer is Apply', example: 2 })
  applied: number;

  @ApiProperty({ type: 'integer', description: 'Recipients whose answer is Reject', example: 1 })
  rejected: number;

  @ApiProperty({ type: 'integer', description: 'Recipients who have not answered', example: 4 })
  none: number;
}

/** One offer in the portal's list of the organisation's offers. */
export class PortalOfferSummaryView {
  @ApiProperty({ example: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b' })
  id: string;

  @ApiProperty({ example: 'Night pickers' })
  title: string;

  @ApiProperty({ enum: PORTAL_OFFER_STATUSES, description: STATUS_DESCRIPTION, example: 'open' })
  status: PortalOfferStatus;

  @ApiProperty({ example: '2026-11-24T10:15:02.000Z' })
  createdAt: string;

  @ApiProperty({ type: 'integer', description: 'Workers the offer was sent to', example: 7 })
  recipientCount: number;

  @ApiProperty({ type: OfferAnswerCountsView })
  answers: OfferAnswerCountsView;
}

/** A page of the organisation's offers, newest first. */
export class PortalOffersPage {
  @ApiProperty({ type: [PortalOfferSummaryView] })
  offers: PortalOfferSummaryView[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `before` for the next page; null on the last',
    example: 'MTc2NDA3OTMwMjEyMzQ1NjowYjllM2MxYS01ZDdmLTRlMmEtOWM4Yi02YTVmNGUzZDJjMWI',
  })
  nextCursor: string | null;
}

/** A recipient as the portal shows it: spec 2.4 plus when the answer was given. */
export class PortalRecipientView {
  @ApiProperty({ type: 'integer', description: 'Recipient entry id', example: 1042 })
  id: number;

  @ApiProperty({ example: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20' })
  workerId: string;

  @ApiPropertyOptional({ description: 'The worker’s name as the directory gave it when the offer was sent; absent if it had none', example: 'Ada Lovelace' })
  name?: string;

  @ApiProperty({ enum: Object.values(RecipientResponse), example: 'applied' })
  response: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'When the current answer was given; null while awaiting', example: '2026-11-24T10:17:45.120Z' })
  respondedAt: string | null;

  @ApiProperty({ enum: Object.values(RecipientConfirmation), description: 'Empty until the offer is complete or withdrawn', example: '' })
  confirmation: string;
}

/** The offer as `GET /offer/{id}` shows it (spec 2.3), with its status and each answer's time. */
export class PortalOfferView extends OmitType(OfferView, ['recipients'] as const) {
  @ApiProperty({ type: [PortalRecipientView] })
  recipients: PortalRecipientView[];

  @ApiProperty({ enum: PORTAL_OFFER_STATUSES, description: STATUS_DESCRIPTION, example: 'open' })
  status: PortalOfferStatus;
}
