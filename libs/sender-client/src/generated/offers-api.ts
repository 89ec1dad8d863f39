// Generated from docs/openapi/offers-api.json by `npm run clients:generate`; do not edit.

export interface paths {
    "/offer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** CreateOffer: send an offer of work to workers */
        post: operations["OffersController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offer/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** GetOffer: the offer with each worker’s current response */
        get: operations["OffersController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offer/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete Offer: name the assigned workers; everyone is told whether they were successful */
        post: operations["OffersController_complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offer/{id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** WithdrawOffer: every original worker is told; repeating it is harmless */
        get: operations["OffersController_withdraw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/worker/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Offers sent to me, newest first */
        get: operations["WorkerOffersController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/worker/offers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One offer sent to me, with my response */
        get: operations["WorkerOffersController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/worker/offers/{id}/response": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Apply (applied) or Reject (rejected); answering again changes the answer */
        put: operations["WorkerOffersController_answer"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        CreateOfferDto: {
            /** @description Id of the user creating the offer */
            createdByUserId: string;
            /** @description Free-text description of the work */
            details?: string;
            events: components["schemas"]["OfferTimeSlotDto"][];
            locationPlaceId?: string;
            /** @description Contact told of answers, completion and withdrawal */
            notifyEmailAddress?: string;
            title: string;
            /** @description Workers who receive the offer */
            workerIds: string[];
        };
        OfferTimeSlotDto: {
            /**
             * @description End of the slot, ISO 8601 UTC
             * @example 2026-12-01T16:00:00Z
             */
            end: string;
            /**
             * @description Start of the slot, ISO 8601 UTC
             * @example 2026-12-01T08:00:00Z
             */
            start: string;
        };
        OfferTimeSlotView: {
            /** @example 2026-12-01T16:00:00.000Z */
            end: string;
            /** @example 2026-12-01T08:00:00.000Z */
            start: string;
        };
        OfferView: {
            complete: boolean;
            /** @example 2026-11-24T10:15:02.000Z */
            createdAt: string;
            /** @example  */
            details: string;
            events: components["schemas"]["OfferTimeSlotView"][];
            /** @example 0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b */
            id: string;
            /** @description Ended (the last slot is over), completed or withdrawn */
            isHistoric: boolean;
            /** @example  */
            locationPlaceId: string;
            recipients: components["schemas"]["RecipientView"][];
            /** @example Night pickers */
            title: string;
            /** @description Spelled as the spec spells it */
            widthdrawn: boolean;
        };
        /** @description RFC 9457 problem details: the body of every error response (application/problem+json). Types are listed in docs/errors.md. */
        ProblemDetails: {
            /** @example The request body has invalid fields. */
            detail: string;
            /**
             * @description Field errors by field path, e.g. events[0].end
             * @example {
             *       "events[0].end": [
             *         "end must be an ISO 8601 timestamp"
             *       ]
             *     }
             */
            errors?: {
                [key: string]: string[];
            };
            /** @example 400 */
            status: number;
            /** @example Bad Request */
            title: string;
            /**
             * Format: uri
             * @example https://availability.example/problems/validation-failed
             */
            type: string;
        };
        RecipientView: {
            /**
             * @description Empty until the offer is complete or withdrawn
             * @enum {string}
             */
            confirmation: "" | "successful" | "unsuccessful" | "withdrawn";
            /**
             * @description Recipient entry id
             * @example 1042
             */
            id: number;
            /** @example Ada Lovelace */
            name: string;
            /** @enum {string} */
            response: "awaiting" | "applied" | "rejected";
            /** @example 3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20 */
            workerId: string;
        };
        WorkerAnswerDto: {
            /** @enum {string} */
            response: "applied" | "rejected";
        };
        WorkerOfferView: {
            complete: boolean;
            /** @enum {string} */
            confirmation: "" | "successful" | "unsuccessful" | "withdrawn";
            /** @example 2026-11-24T10:15:02.000Z */
            createdAt: string;
            /** @example  */
            details: string;
            events: components["schemas"]["OfferTimeSlotView"][];
            /** @example 0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b */
            id: string;
            isHistoric: boolean;
            /** @example  */
            locationPlaceId: string;
            /**
             * @description My response
             * @enum {string}
             */
            response: "awaiting" | "applied" | "rejected";
            /** @example Night pickers */
            title: string;
            /** @description Spelled as the spec spells it */
            widthdrawn: boolean;
        };
        WorkerOffersPage: {
            /** @description Pass as `before` for the next page; null on the last */
            nextCursor: string | null;
            offers: components["schemas"]["WorkerOfferView"][];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    OffersController_create: {
        parameters: {
            query?: {
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: {
                /** @description A repeat with the same key and body returns the first offer */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateOfferDto"];
            };
        };
        responses: {
            /** @description The new offer id, as plain text; Location: /offer/{id} */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Field errors (problem+json) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing, invalid or revoked API key (problem+json) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Idempotency-Key reused with a different body */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    OffersController_get: {
        parameters: {
            query?: {
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Offer (spec 2.3) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OfferView"];
                };
            };
            /** @description Missing, invalid or revoked API key (problem+json) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer in your organisation */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    OffersController_complete: {
        parameters: {
            query?: {
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description Worker ids (spec 2.5) */
        requestBody: {
            content: {
                "application/json": string[];
            };
        };
        responses: {
            /** @description Completed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not an array, or a worker who is not a recipient or has not applied */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing, invalid or revoked API key (problem+json) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Already complete, or withdrawn */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    OffersController_withdraw: {
        parameters: {
            query?: {
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Withdrawn; no body */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or revoked API key (problem+json) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The offer is complete */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    WorkerOffersController_list: {
        parameters: {
            query?: {
                /** @description 1 to 100, default 50 */
                limit?: string;
                /** @description nextCursor of the previous page */
                before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of my offers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerOffersPage"];
                };
            };
            /** @description Missing, invalid or revoked worker token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    WorkerOffersController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The offer with my response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerOfferView"];
                };
            };
            /** @description Missing, invalid or revoked worker token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer sent to me */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    WorkerOffersController_answer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkerAnswerDto"];
            };
        };
        responses: {
            /** @description The offer with my new response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerOfferView"];
                };
            };
            /** @description Missing, invalid or revoked worker token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer sent to me */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description The offer is complete, withdrawn or over */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description More requests this minute than the credential’s RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds until the window ends */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
}
