import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { OffersRepository } from './offers.repository.js';

/** Idempotency-Keys are honoured for 24 hours (docs/offers-api.md), then forgotten. */
export const IDEMPOTENCY_KEY_HOURS = 24;

@Injectable()
export class IdempotencyKeyCleaner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IdempotencyKeyCleaner');
  private timer?: NodeJS.Timeout;

  constructor(private readonly repository: OffersRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.repository.deleteExpiredIdempotencyKeys(IDEMPOTENCY_KEY_HOURS).catch((error: Error) => this.logger.warn(error.message));
    }, 10 * 60_000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}
