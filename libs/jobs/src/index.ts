export * from './job-queues.js';
export * from './jobs.module.js';
export * from './queue-name.js';
