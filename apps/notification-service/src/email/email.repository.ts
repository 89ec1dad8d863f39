import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { OfferCreatedEvent, OfferResponseRecordedEvent } from '@availability/contracts';
import type { AnswerLine } from './email-content.js';

export interface OfferReadModel {
  offerId: string;
  organisationId: string;
  title: string;
  createdByUserId: string;
  notifyEmailAddress: string | null;
  closedAt: Date | null;
}

const OFFER_COLUMNS = `offer_id AS "offerId", organisation_id AS "organisationId", title, created_by_user_id AS "createdByUserId",
  notify_email_address AS "notifyEmailAddress", closed_at AS "closedAt"`;

/** The offer read model (from offers.created) and answers waiting to be e-mailed. */
@Injectable()
export class EmailRepository {
  constructor(private readonly dataSource: DataSource) {}

  async recordOffer(event: OfferCreatedEvent): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notifications.offer (offer_id, organisation_id, title, created_by_user_id, notify_email_address)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (offer_id) DO NOTHING`,
      [event.offerId, event.organisationId, event.title, event.createdByUserId, event.notifyEmailAddress || null],
    );
  }

  async offer(offerId: string): Promise<OfferReadModel | undefined> {
    const rows: OfferReadModel[] = await this.dataSource.query(`SELECT ${OFFER_COLUMNS} FROM notifications.offer WHERE offer_id = $1`, [offerId]);
    return rows[0];
  }

  /**
   * Records answers, each once (a repeated event changes nothing), in one statement for the batch.
   * Inserted in event id order: two instances holding the same answers (redelivered) in batches of
   * different orders would otherwise deadlock.
   */
  async recordAnswers(events: OfferResponseRecordedEvent[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notifications.offer_answer (event_id, offer_id, worker_id, response, previous_response, responded_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS a(event_id)
       ORDER BY event_id
       ON CONFLICT (event_id) DO NOTHING`,
      [
        events.map((e) => e.eventId),
        events.map((e) => e.offerId),
        events.map((e) => e.workerId),
        events.map((e) => e.response),
        events.map((e) => e.previousResponse ?? ''),
        events.map((e) => e.respondedAt),
      ],
    );
  }

  /** Offers with answers recorded in [from, to) that still wait for their e-mail. */
  async offersWithWaitingAnswers(from: Date, to: Date): Promise<string[]> {
    const rows: Array<{ offerId: string }> = await this.dataSource.query(
      `SELECT DISTINCT offer_id AS "offerId" FROM notifications.offer_answer
       WHERE emailed_at IS NULL AND recorded_at >= $1 AND recorded_at < $2`,
      [from, to],
    );
    return rows.map((row) => row.offerId);
  }

  /**
   * Runs `work` with the offer locked and its answers not yet e-mailed (oldest first); when `work`
   * succeeds they are marked e-mailed in the same transaction. The lock serialises a digest and
   * the closing e-mail of one offer, so no answer is listed twice.
   */
  async withPendingAnswers<T>(
    offerId: string,
    work: (offer: OfferReadModel, answers: AnswerLine[]) => Promise<T>,
    options: { close?: boolean } = {},
  ): Promise<T | undefined> {
    return this.dataSource.transaction('READ COMMITTED', async (manager: EntityManager) => {
      const offers: OfferReadModel[] = await manager.query(`SELECT ${OFFER_COLUMNS} FROM notifications.offer WHERE offer_id = $1 FOR UPDATE`, [offerId]);
      const offer = offers[0];
      if (!offer) return undefined;
      const rows: Array<AnswerLine & { eventId: string }> = await manager.query(
        `SELECT event_id AS "eventId", worker_id AS "workerId", response, previous_response AS "previousResponse", responded_at AS "respondedAt"
         FROM notifications.offer_answer WHERE offer_id = $1 AND emailed_at IS NULL ORDER BY responded_at, event_id`,
        [offerId],
      );
      const result = await work(offer, rows);
      if (rows.length > 0) {
        await manager.query(`UPDATE notifications.offer_answer SET emailed_at = now() WHERE event_id = ANY($1::uuid[])`, [rows.map((r) => r.eventId)]);
      }
      if (options.close) await manager.query(`UPDATE notifications.offer SET closed_at = COALESCE(closed_at, now()) WHERE offer_id = $1`, [offerId]);
      return result;
    });
  }

  /** An e-mail job about to be queued, due at `dueAt`: kept until its job finishes (forgetPendingEmail). */
  async recordPendingEmail(jobId: string, job: unknown, dueAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notifications.pending_email (job_id, job, progress_at) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO NOTHING`,
      [jobId, JSON.stringify(job), dueAt],
    );
  }

  /** The e-mail's job failed an attempt: its back-off starts now. */
  async pendingEmailProgress(jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await this.dataSource.query(`UPDATE notifications.pending_email SET progress_at = now() WHERE job_id = ANY($1::text[])`, [jobIds]);
  }

  /**
   * The job `jobId` begins an attempt at the pending e-mail `pendingId`, which may last `leaseMs`:
   * the sweep does not take it for lost before then. False when there is nothing for this job to do:
   * the e-mail was sent (or given up), or the sweep queued it again under another job.
   */
  async beginPendingEmailAttempt(pendingId: string, jobId: string, leaseMs: number): Promise<boolean> {
    // A SELECT around the UPDATE: TypeORM answers a bare UPDATE with its rows and their count.
    const rows: unknown[] = await this.dataSource.query(
      `WITH begun AS (
         UPDATE notifications.pending_email SET progress_at = now() + $3 * interval '1 millisecond'
         WHERE job_id = $1 AND (queued_job_id IS NULL OR queued_job_id = $2)
         RETURNING 1
       )
       SELECT 1 FROM begun`,
      [pendingId, jobId, leaseMs],
    );
    return rows.length > 0;
  }

  async forgetPendingEmail(jobId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM notifications.pending_email WHERE job_id = $1`, [jobId]);
  }

  /**
   * Up to `limit` pending e-mails whose job made no progress since `before`, oldest first, each marked
   * as progressing and as queued again under its id and `recoverySuffix`, in the same statement: the
   * caller queues them again under that id, and no other sweep gets them (rows another sweep is
   * claiming are skipped, not waited for).
   */
  async claimStalledPendingEmails(before: Date, limit: number, recoverySuffix: string): Promise<Array<{ jobId: string; recoveryJobId: string; job: unknown }>> {
    return this.dataSource.query(
      `WITH claimed AS (
         UPDATE notifications.pending_email p SET progress_at = now(), queued_job_id = p.job_id || $3
         FROM (SELECT job_id FROM notifications.pending_email WHERE progress_at < $1 ORDER BY progress_at LIMIT $2 FOR UPDATE SKIP LOCKED) stalled
         WHERE p.job_id = stalled.job_id
         RETURNING p.job_id, p.queued_job_id, p.job
       )
       SELECT job_id AS "jobId", queued_job_id AS "recoveryJobId", job FROM claimed`,
      [before, limit, recoverySuffix],
    );
  }
}
