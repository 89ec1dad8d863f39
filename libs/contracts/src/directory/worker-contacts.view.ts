import { ApiProperty } from '@nestjs/swagger';

/** An organisation the worker shares its availability with. */
export class WorkerContactView {
  @ApiProperty({ format: 'uuid', description: 'The contact entry', example: '5a567525-ce25-429c-a170-50c3f48e5204' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ example: 'Northside Staffing' })
  organisationName: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.357Z' })
  addedAt: string;
}

/** The worker app's contacts, oldest first. */
export class WorkerContactsView {
  @ApiProperty({ type: [WorkerContactView] })
  contacts: WorkerContactView[];
}

/** The answer to `PUT /worker/contacts/{organisationId}`. */
export class WorkerContactAddedView {
  @ApiProperty({ format: 'uuid', description: 'The contact entry', example: '5a567525-ce25-429c-a170-50c3f48e5204' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ description: 'True when this call added it (201), false when it already was a contact (200)', example: true })
  created: boolean;
}
