import { Injectable } from '@nestjs/common';
import { DeliveriesRepository } from '../delivery/deliveries.repository.js';
import { Deliverer } from '../delivery/deliverer.js';
import { TargetResolver } from '../delivery/target-resolver.js';
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
    private readonly resolver: TargetResolver,
  ) {}

  /** Its state, at the address saved now (the directory's; the one last seen failing while the directory does not answer). */
  async get(organisationId: string): Promise<EndpointStateView> {
    const [activity, saved] = await Promise.all([this.repository.endpointActivity(organisationId), this.savedBaseUrl(organisationId)]);
    return endpointState(organisationId, { ...activity, baseUrl: saved === undefined ? activity.baseUrl : saved }, this.gate.circuitOpen(organisationId));
  }

  /** Calls to the endpoint resume now: enabled, breaker reset, held deliveries queued. Returns the new state. */
  async enable(organisationId: string): Promise<EndpointStateView> {
    await this.deliverer.enableEndpoint(organisationId);
    return this.get(organisationId);
  }

  /**
   * The saved base URL (null: none), from the resolver's cache, which a re-save evicts at once; undefined
   * when the directory does not answer. The endpoint row's own is only where calls last failed.
   */
  private async savedBaseUrl(organisationId: string): Promise<string | null | undefined> {
    try {
      return (await this.resolver.resolve(organisationId)).baseUrl;
    } catch {
      return undefined;
    }
  }
}
