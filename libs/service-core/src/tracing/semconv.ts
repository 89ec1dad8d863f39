/**
 * The experimental OpenTelemetry attribute names our spans use (messaging), copied from
 * `@opentelemetry/semantic-conventions` 1.45 as its README asks: its `incubating` entry point loads
 * every experimental convention (about 2 MB of source in each process) and may change names in a
 * minor version. Stable names still come from the package itself.
 */
export const ATTR_MESSAGING_SYSTEM_NAME = 'messaging.system.name' as const;
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name' as const;
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id' as const;
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type' as const;
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name' as const;
export const ATTR_MESSAGING_CONSUMER_GROUP_NAME = 'messaging.consumer.group.name' as const;
