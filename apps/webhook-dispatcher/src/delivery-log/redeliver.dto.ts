import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsOptional, MaxLength } from 'class-validator';

/** Which deliveries a redelivery by time may start again. */
export const REDELIVERABLE_STATUSES = ['failed', 'dead'] as const;
export type RedeliverableStatus = (typeof REDELIVERABLE_STATUSES)[number];

/** `{since, statuses?}`: deliver again what failed since a time. */
export class RedeliverSinceDto {
  /** ISO 8601: deliveries of events recorded at or after this time. */
  @MaxLength(40)
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 timestamp' })
  since: string;

  /** Which deliveries to start again; default failed and dead. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(REDELIVERABLE_STATUSES, { each: true })
  statuses?: RedeliverableStatus[];
}

/** The body of a portal redelivery by time, as its OpenAPI document states it. */
export const REDELIVER_SINCE_BODY_SCHEMA = {
  type: 'object',
  required: ['since'],
  properties: {
    since: { type: 'string', format: 'date-time', maxLength: 40, description: 'Deliveries of events recorded at or after this time (with its offset)', example: '2026-11-24T09:00:00Z' },
    statuses: {
      type: 'array',
      maxItems: 2,
      items: { type: 'string', enum: [...REDELIVERABLE_STATUSES] },
      description: 'Which to deliver again; default both',
      example: ['failed', 'dead'],
    },
  },
};
