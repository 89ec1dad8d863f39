import type { EndpointActivityRow } from '../delivery/deliveries.repository.js';
import type { EndpointStateName, EndpointStateView } from './delivery-log.view.js';

/**
 * An endpoint's state from what the log and this process know. The breaker is per process, so
 * `circuitOpen` is true when deliveries are held back (some process found it open) or this process's
 * breaker is open. Disabled outranks the circuit, the circuit a failure streak.
 */
export function endpointState(organisationId: string, activity: EndpointActivityRow, localCircuitOpen: boolean): EndpointStateView {
  const circuitOpen = activity.heldCount > 0 || localCircuitOpen;
  const disabled = activity.disabledAt !== null;
  const state: EndpointStateName = disabled ? 'disabled' : circuitOpen ? 'circuit-open' : activity.failingSince !== null ? 'failing' : 'healthy';
  return {
    organisationId,
    state,
    baseUrl: activity.baseUrl,
    circuitOpen,
    heldCount: activity.heldCount,
    disabled,
    failingSince: activity.failingSince,
    disabledAt: activity.disabledAt,
    disabledReason: disabled ? activity.disabledReason : null,
    lastSuccessAt: activity.lastSuccessAt,
    lastFailureAt: activity.lastFailureAt,
    lastFailureError: activity.lastFailureError,
  };
}
