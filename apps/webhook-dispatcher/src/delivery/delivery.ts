/**
 * One delivery of one event to one organisation, as the intake hands it on and a job carries it:
 * everything an attempt needs, so an attempt reads nothing first.
 */
export interface Delivery {
  deliveryId: number;
  /** The attempt series (0, then one more per operator redelivery). */
  series: number;
  eventId: string;
  organisationId: string;
  subject: string;
  webhookId: string;
  method: 'GET' | 'POST';
  path: string;
  body: string;
  /** A test event the organisation sent itself: every attempt carries the `webhook-test: true` header. Absent on jobs queued before tests existed. */
  test?: boolean;
}

/** What one call of a delivery is made of, logged or not yet (a first attempt is logged with its outcome). */
export type DeliveryCall = Omit<Delivery, 'deliveryId' | 'series'>;

/** A delivery's row, written or about to be, as the call it makes. */
export function callOf(row: {
  eventId: string;
  organisationId: string;
  eventSubject: string;
  webhookId: string;
  method: string;
  path: string;
  body: string;
  test?: boolean;
}): DeliveryCall {
  const call: DeliveryCall = {
    eventId: row.eventId,
    organisationId: row.organisationId,
    subject: row.eventSubject,
    webhookId: row.webhookId,
    method: row.method as Delivery['method'],
    path: row.path,
    body: row.body,
  };
  // Only tests carry the flag, so a real delivery's job holds exactly what it did before.
  if (row.test) call.test = true;
  return call;
}

/** A delivery row as the log holds it (`RedeliveryRow`, `HeldRow`), as a Delivery. */
export function deliveryOf(row: Parameters<typeof callOf>[0] & { id: number; series: number }): Delivery {
  return { deliveryId: row.id, series: row.series, ...callOf(row) };
}
