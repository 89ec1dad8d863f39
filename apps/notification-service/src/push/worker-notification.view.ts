import { ApiProperty } from '@nestjs/swagger';
import { PUSH_KINDS, type PushKind } from './push-transport.js';
import type { WorkerNotificationRow } from './push.repository.js';

/** Something the worker was told, whether or not a push reached a device. */
export class WorkerNotificationView {
  @ApiProperty({ type: 'integer', example: 10 })
  id: number;

  @ApiProperty({ format: 'uuid', description: 'The event that caused it', example: '139ad106-eb50-4265-92ca-77654ea9da7e' })
  eventId: string;

  @ApiProperty({ enum: [...PUSH_KINDS], example: 'offer.withdrawn' })
  kind: PushKind;

  @ApiProperty({ format: 'uuid', example: '77d61477-eda8-4fb4-a236-00757838b584' })
  offerId: string;

  @ApiProperty({ format: 'uuid', description: 'The organisation that sent the offer', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ example: 'Offer withdrawn' })
  title: string;

  @ApiProperty({ example: '“Warehouse pickers, night shift” was withdrawn by the sender.' })
  body: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.246Z' })
  createdAt: string;
}

/** A page of the worker's notifications, newest first. */
export class WorkerNotificationsPage {
  @ApiProperty({ type: [WorkerNotificationView] })
  notifications: WorkerNotificationView[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `before` for the next page; null on the last', example: '7' })
  nextCursor: string | null;
}

/** The page of `rows`, fetched with `pageSize`: a full page may have more after it. */
export function workerNotificationsPage(rows: WorkerNotificationRow[], pageSize: number): WorkerNotificationsPage {
  return {
    notifications: rows.map((row) => ({
      id: row.id,
      eventId: row.eventId,
      kind: row.kind,
      offerId: row.offerId,
      organisationId: row.organisationId,
      title: row.title,
      body: row.body,
      createdAt: new Date(row.createdAt).toISOString(),
    })),
    nextCursor: rows.length === pageSize ? String(rows[rows.length - 1].id) : null,
  };
}
