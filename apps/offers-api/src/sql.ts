/**
 * The SQL offers-api runs on its hot paths, exported for the benchmark's bare Fastify + pg baseline
 * so both sides run exactly the same statements. Nothing else may import an app.
 */
export { INSERT_OFFER_SQL, insertOfferParams, type NewOffer, SELECT_OFFER_JSON_SQL } from './offers/offers.repository.js';
