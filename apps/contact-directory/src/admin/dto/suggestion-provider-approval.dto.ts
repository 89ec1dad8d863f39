import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

/** Body of `PUT /admin/organisations/{id}/suggestion-provider`. */
export class SuggestionProviderApprovalDto {
  @ApiProperty({ description: 'true: the organisation may offer contact suggestions; false: its searches stop at once' })
  @IsBoolean({ message: 'approved must be true or false' })
  approved: boolean;
}
