export * from './sender-client.js';
export * from './problem.js';
export type * from './types.js';
