import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { asyncApiDocument } from './asyncapi.js';
import { EVENT_SCHEMAS } from './event-schemas.js';
import { EventSubject } from './event-subjects.js';

describe('docs/asyncapi.json', () => {
  it('is the document the event definitions make (run `npm run docs:contracts` and commit it)', () => {
    const committed = JSON.parse(readFileSync(resolve(process.cwd(), 'docs/asyncapi.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(asyncApiDocument())));
  });

  it('has a channel, a message with the event’s schema and a sending operation for every subject', () => {
    const document = asyncApiDocument() as {
      channels: Record<string, { address: string }>;
      operations: Record<string, { action: string; channel: { $ref: string } }>;
      components: { messages: Record<string, { payload: unknown }> };
    };
    const addresses = Object.values(document.channels).map((channel) => channel.address);
    expect(addresses.sort()).toEqual(Object.values(EventSubject).sort());
    for (const [id, channel] of Object.entries(document.channels)) {
      expect(document.components.messages[id].payload).toEqual(JSON.parse(JSON.stringify(EVENT_SCHEMAS[channel.address as EventSubject])));
      const sends = Object.values(document.operations).filter((op) => op.action === 'send' && op.channel.$ref === `#/channels/${id}`);
      expect(sends).toHaveLength(1);
    }
  });
});
