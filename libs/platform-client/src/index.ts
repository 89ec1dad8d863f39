export * from './directory-admin.client.js';
export * from './http.js';
export * from './offers.client.js';
export * from './portal.client.js';
export * from './journey.js';
