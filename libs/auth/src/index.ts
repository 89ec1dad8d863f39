export * from './admin-token.js';
export * from './auth.guards.js';
export * from './auth.module.js';
export * from './credential-principals.js';
export * from './credential-verifier.js';
export * from './portal-user.guard.js';
