/** Fields every event payload carries (DESIGN 2). `eventId` is also the JetStream `Nats-Msg-Id`. */
export interface EventEnvelope {
  eventId: string;
  /** ISO 8601 UTC. */
  occurredAt: string;
  organisationId: string;
}
