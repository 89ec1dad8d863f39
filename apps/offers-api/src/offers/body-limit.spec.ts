import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { CreateOfferDto, OfferLimits } from '@availability/contracts';
import { parseJsonBody, validateBody } from '@availability/service-core';

/** As Python's `json.dumps` writes by default (ensure_ascii): every character past ASCII as `\u` escapes. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The largest offer `POST /offer` reads: every worker id, string and time slot at its longest, text
 * in characters of four UTF-8 bytes (twelve once escaped).
 */
function largestOffer(): object {
  const emoji = (n: number) => '\u{1F600}'.repeat(n);
  const day = 24 * 60 * 60 * 1000;
  const timestamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
  return {
    createdByUserId: emoji(OfferLimits.userIdLength),
    title: emoji(OfferLimits.titleLength),
    details: emoji(OfferLimits.detailsLength),
    locationPlaceId: emoji(OfferLimits.locationPlaceIdLength),
    notifyEmailAddress: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.example`,
    workerIds: Array.from({ length: OfferLimits.workers }, (_, i) => `w${String(i).padStart(OfferLimits.idLength - 1, '0')}`),
    events: Array.from({ length: OfferLimits.events }, (_, i) => ({
      start: timestamp(Date.UTC(2031, 0, 1) + i * day),
      end: timestamp(Date.UTC(2031, 0, 1) + i * day + 8 * 3600_000),
    })),
  };
}

describe('the body limit of POST /offer', () => {
  const offer = largestOffer();
  // Compact in UTF-8; with every character escaped; indented, one value a line.
  const written = { compact: JSON.stringify(offer), escaped: asciiJson(offer), indented: JSON.stringify(offer, null, 2) };

  it.each(Object.keys(written) as Array<keyof typeof written>)('is measured on an offer the API reads, written %s', (form) => {
    const parsed = parseJsonBody(written[form]);
    expect(parsed).toHaveProperty('value');
    expect(() => validateBody(CreateOfferDto, (parsed as { value: unknown }).value)).not.toThrow();
  });

  it('fits the largest offer in any of these forms with a fifth to spare, and lets no body cost much more', () => {
    const largest = Math.max(...Object.values(written).map((text) => Buffer.byteLength(text)));
    expect(largest * 1.2).toBeLessThanOrEqual(OfferLimits.bodyBytes);
    // A limit far past it would only let a body of junk cost more to receive, parse and collect.
    expect(OfferLimits.bodyBytes).toBeLessThanOrEqual(largest * 1.5);
  });
});
