export * from './service-process.js';
export * from './test-database.js';
export * from './test-events.js';
export * from './test-platform.js';
export * from './smtp-sink.js';
export * from './stand-in-responder.js';
export * from './openapi-documents.js';
export * from './cpu-usage.js';
