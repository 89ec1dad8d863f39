import { Injectable } from '@nestjs/common';
import { DeliveriesRepository } from '../delivery/deliveries.repository.js';
import { Deliverer } from '../delivery/deliverer.js';
import { EndpointGate } from '../domain/endpoint-gate.js';
import type { EndpointStateView } from './delivery-log.view.js';
import { endpointState } from './endpoint-state.js';

/** An organisation's endpoint: its state, and enabling it again. Shared by the operator and portal APIs. */
@Injectable()
export class EndpointStates {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly gate: EndpointGate,
    private readonly deliverer: Deliverer,
  ) {}

  async get(organisationId: string): Promise<EndpointStateView> {
    return endpointState(organisationId, await this.repository.endpointActivity(organisationId), this.gate.circuitOpen(organisationId));
  }

  /** Calls to the endpoint resume now: enabled, breaker reset, held deliveries queued. Returns the new state. */
  async enable(organisationId: string): Promise<EndpointStateView> {
    await this.deliverer.enableEndpoint(organisationId);
    return this.get(organisationId);
  }
}
