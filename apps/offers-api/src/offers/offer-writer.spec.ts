import { describe, expect, it } from '@jest/globals';
import type { OutboxMessage } from '@availability/messaging';
import { BATCHED_OFFER_MAX_WORKERS, type OfferWrite, OfferWriter } from './offer-writer.js';
import type { NewOffer, OffersRepository } from './offers.repository.js';

/** A repository that records the statements it is asked to run and refuses the offers titled "refused". */
function writer(): { writer: OfferWriter; statements: string[][] } {
  const statements: string[][] = [];
  const repository = {
    insertOffers: async (writes: OfferWrite[]) => {
      statements.push(writes.map((write) => write.offer.title));
      await Promise.resolve();
      if (writes.some((write) => write.offer.title === 'refused')) throw new Error('value too long for type character varying(200)');
    },
  } as unknown as OffersRepository;
  return { writer: new OfferWriter(repository), statements };
}

function offerWrite(title: string, workers = 10): OfferWrite {
  const offer = { id: title, title, recipients: Array.from({ length: workers }, (_, i) => ({ workerId: `w${i}`, name: `W${i}` })) } as NewOffer;
  return { offer, event: { eventId: `e-${title}`, subject: 'offers.created', payload: '{}' } as OutboxMessage };
}

describe('OfferWriter', () => {
  it('writes the offers of one turn of the event loop in one statement', async () => {
    const { writer: subject, statements } = writer();
    await Promise.all(['a', 'b', 'c'].map((title) => subject.write(offerWrite(title))));
    expect(statements).toEqual([['a', 'b', 'c']]);
  });

  it('writes an offer alone when nothing else comes in its turn', async () => {
    const { writer: subject, statements } = writer();
    await subject.write(offerWrite('a'));
    await subject.write(offerWrite('b'));
    expect(statements).toEqual([['a'], ['b']]);
  });

  it('fails only the offer the database refuses: its neighbours are written alone', async () => {
    const { writer: subject, statements } = writer();
    const outcomes = await Promise.allSettled(['a', 'refused', 'c'].map((title) => subject.write(offerWrite(title))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('value too long for type character varying(200)'));
    expect(statements).toEqual([['a', 'refused', 'c'], ['a'], ['refused'], ['c']]);
  });

  it('counts an offer found written already as written: the shared statement committed, its answer lost', async () => {
    const statements: number[] = [];
    const repository = {
      insertOffers: async (writes: OfferWrite[]) => {
        statements.push(writes.length);
        await Promise.resolve();
        if (writes.length > 1) throw new Error('Connection terminated unexpectedly');
        throw Object.assign(new Error('duplicate key value violates unique constraint "offer_pkey"'), { code: '23505', constraint: 'offer_pkey' });
      },
    } as unknown as OffersRepository;
    const subject = new OfferWriter(repository);
    await Promise.all(['a', 'b'].map((title) => subject.write(offerWrite(title))));
    expect(statements).toEqual([2, 1, 1]);
  });

  it('writes an offer to many workers alone, at once', async () => {
    const { writer: subject, statements } = writer();
    await Promise.all([subject.write(offerWrite('a')), subject.write(offerWrite('big', BATCHED_OFFER_MAX_WORKERS + 1)), subject.write(offerWrite('c'))]);
    expect(statements).toEqual([['big'], ['a', 'c']]);
  });
});
