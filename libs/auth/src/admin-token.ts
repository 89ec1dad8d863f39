// Shared with /metrics, which service-core serves without depending on this lib.
export { adminTokenMatches, bearerToken } from '@availability/service-core';
