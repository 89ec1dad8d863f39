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

/** A delivery row as the log holds it (`RedeliveryRow`, `HeldRow`), as a Delivery. */
export function deliveryOf(row: {
  id: number;
  series: number;
  eventId: string;
  organisationId: string;
  eventSubject: string;
  webhookId: string;
  method: string;
  path: string;
  body: string;
  test?: boolean;
}): Delivery {
  const delivery: Delivery = {
    deliveryId: row.id,
    series: row.series,
    eventId: row.eventId,
    organisationId: row.organisationId,
    subject: row.eventSubject,
    webhookId: row.webhookId,
    method: row.method as Delivery['method'],
    path: row.path,
    body: row.body,
  };
  // Only tests carry the flag, so a real delivery's job holds exactly what it did before.
  if (row.test) delivery.test = true;
  return delivery;
}
