import { Body, Controller, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '@availability/service-core';
import { type RecordedFailure, RecordingPushTransport } from '../push/recording.transport.js';

/**
 * Development and test only (PUSH_TRANSPORT=recording with DEV_ENDPOINTS): what the recording
 * transport was handed, and which tokens it should fail with which FCM error.
 */
@ApiExcludeController()
@Controller('dev')
export class DevPushController {
  constructor(private readonly transport: RecordingPushTransport) {}

  @Get('push-log')
  log(@Query('offerId') offerId?: string, @Query('eventId') eventId?: string, @Query('token') token?: string, @Query('summary') summary?: string) {
    const pushes = this.transport.log({ offerId, eventId, token });
    if (summary === 'true' || summary === '1') {
      // Counts and hand-over times only (benchmarks poll this; 10,000 full records would be megabytes).
      return {
        count: pushes.length,
        succeeded: pushes.filter((p) => p.success).length,
        firstAt: pushes[0]?.at ?? null,
        lastAt: pushes.at(-1)?.at ?? null,
      };
    }
    return { count: pushes.length, pushes };
  }

  @Delete('push-log')
  @HttpCode(204)
  clear(): void {
    this.transport.clear();
  }

  @Put('push-failures')
  @HttpCode(204)
  setFailures(@Body() body: unknown): void {
    const failures = (body as { failures?: unknown } | null)?.failures;
    if (typeof failures !== 'object' || failures === null || Array.isArray(failures)) {
      throw ProblemException.field('failures', 'must be an object: token → FCM error code or {code, times, retryAfterMs}');
    }
    this.transport.setFailures(failures as Record<string, string | RecordedFailure>);
  }

  /** Back to the failures configured at start (RECORDING_PUSH_FAILURES). */
  @Delete('push-failures')
  @HttpCode(204)
  resetFailures(): void {
    this.transport.resetFailures();
  }
}
