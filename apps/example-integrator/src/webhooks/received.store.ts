import { Injectable } from '@nestjs/common';
import { ExampleIntegratorConfig } from '../config/example-integrator.config.js';

export interface ReceivedWebhook {
  webhookId: string;
  method: string;
  path: string;
  /** The raw body as text ('' for none). */
  body: string;
  receivedAt: string;
  /** A test event the organisation sent itself from the portal: recorded, never acted on. */
  test: boolean;
  /** How many times it arrived: more than 1 means the platform delivered it again (acknowledged, not acted on). */
  deliveries: number;
}

/**
 * What the integrator has received, de-duplicated by event (see deduplicationKey: the body's
 * `eventId`, else the `webhook-id`): the platform delivers at least once and keeps both across
 * retries, so a repeat is acknowledged (2xx, or it would be retried) but not acted on twice. A real
 * integrator keeps the keys in its database; memory is enough here.
 */
@Injectable()
export class ReceivedStore {
  private readonly seen = new Map<string, ReceivedWebhook>();
  private readonly received: ReceivedWebhook[] = [];
  private duplicates = 0;

  constructor(private readonly config: ExampleIntegratorConfig) {}

  /** True when the event `key` names is new (and records it); false for a repeat. */
  record(key: string, arrived: Omit<ReceivedWebhook, 'deliveries'>): boolean {
    const known = this.seen.get(key);
    if (known) {
      // Refresh its place in the LRU order.
      this.seen.delete(key);
      this.seen.set(key, known);
      known.deliveries += 1;
      this.duplicates += 1;
      return false;
    }
    const webhook = { ...arrived, deliveries: 1 };
    this.seen.set(key, webhook);
    if (this.seen.size > this.config.INTEGRATOR_DEDUP_CAPACITY) this.seen.delete(this.seen.keys().next().value as string);
    this.received.push(webhook);
    if (this.received.length > this.config.INTEGRATOR_RECEIVED_CAPACITY) this.received.shift();
    return true;
  }

  list(): { count: number; duplicates: number; items: ReceivedWebhook[] } {
    return { count: this.received.length, duplicates: this.duplicates, items: this.received.map((item) => ({ ...item })) };
  }

  clear(): void {
    this.seen.clear();
    this.received.length = 0;
    this.duplicates = 0;
  }
}
