import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { WORKER_ANSWERS, type WorkerAnswer } from './offer-values.js';

/** Body of the worker app's answer: Apply → `applied`, Reject → `rejected`. */
export class WorkerAnswerDto {
  @ApiProperty({ enum: WORKER_ANSWERS })
  @IsIn(WORKER_ANSWERS, { message: `response must be one of: ${WORKER_ANSWERS.join(', ')}` })
  response: WorkerAnswer;
}
