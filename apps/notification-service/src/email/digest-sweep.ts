import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { digestWindow } from './email-content.js';
import { EmailRepository } from './email.repository.js';
import { EmailService } from './email.service.js';

/**
 * How far a sweep looks back, in windows. Answers a sweep missed (committed just after it ran) or
 * whose digest job was lost (Redis lost its data) are found by the next sweeps; an answer whose
 * digest keeps failing is given up after this many windows.
 */
const LOOKBACK_WINDOWS = 3;
/** The first sweep after a start looks back a day, so digests due while no instance ran still go. */
const FIRST_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** After a window ends, so that answers recorded in its last moments have committed. */
const SETTLE_MS = 100;

/**
 * Queues the digest e-mails of every window when it ends: one job per offer with answers recorded in
 * the window (or the few before it) that still wait for their e-mail. Answers are read from the
 * database, so a digest survives the loss of Redis's data, and an answer costs no Redis call of its
 * own. Every instance sweeps; the job ids (offer and window) make their sweeps one job.
 */
@Injectable()
export class DigestSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DigestSweep');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lookbackMs = FIRST_LOOKBACK_MS;

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly repository: EmailRepository,
    private readonly email: EmailService,
  ) {}

  onApplicationBootstrap(): void {
    this.scheduleNext();
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
  }

  /** Queues the digests of the window that ended at `windowEnd`. */
  async sweep(windowEnd: number): Promise<void> {
    const offerIds = await this.repository.offersWithWaitingAnswers(new Date(windowEnd - this.lookbackMs), new Date(windowEnd));
    await this.email.queueDigests(offerIds, windowEnd - this.config.EMAIL_DIGEST_WINDOW_MS);
    this.lookbackMs = LOOKBACK_WINDOWS * this.config.EMAIL_DIGEST_WINDOW_MS;
  }

  private scheduleNext(): void {
    const now = Date.now();
    const windowEnd = digestWindow(now, this.config.EMAIL_DIGEST_WINDOW_MS).sendAt;
    this.timer = setTimeout(() => {
      // A sweep still running (a slow database) is not started twice; the next one covers its windows.
      this.running ??= this.sweep(windowEnd)
        .catch((error: Error) => this.logger.warn(`digest sweep failed: ${error.message}`))
        .finally(() => (this.running = undefined));
      this.scheduleNext();
    }, windowEnd - now + SETTLE_MS).unref();
  }
}
