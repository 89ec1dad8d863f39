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
    "/portal/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your organisation’s offers, newest first, with answer counts; page with `before` = the nextCursor of the previous page */
        get: operations["PortalOffersController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/portal/offers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of your offers with every recipient’s answer and when it was given; poll with If-None-Match */
        get: operations["PortalOffersController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/portal/offers/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete the offer naming the assigned workers, as POST /offer/{id}/complete */
        post: operations["PortalOffersController_complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/portal/offers/{id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw the offer, as GET /offer/{id}/withdraw: every original worker is told; repeating it is harmless */
        post: operations["PortalOffersController_withdraw"];
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
        OfferAnswerCountsView: {
            /**
             * @description Recipients whose answer is Apply
             * @example 2
             */
            applied: number;
            /**
             * @description Recipients who have not answered
             * @example 4
             */
            none: number;
            /**
             * @description Recipients whose answer is Reject
             * @example 1
             */
            rejected: number;
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
        PortalOfferSummaryView: {
            answers: components["schemas"]["OfferAnswerCountsView"];
            /** @example 2026-11-24T10:15:02.000Z */
            createdAt: string;
            /** @example 0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b */
            id: string;
            /**
             * @description Workers the offer was sent to
             * @example 7
             */
            recipientCount: number;
            /**
             * @description open: workers may still answer; ended: the last slot is over, neither completed nor withdrawn; complete; withdrawn
             * @example open
             * @enum {string}
             */
            status: "open" | "ended" | "complete" | "withdrawn";
            /** @example Night pickers */
            title: string;
        };
        PortalOfferView: {
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
            recipients: components["schemas"]["PortalRecipientView"][];
            /**
             * @description open: workers may still answer; ended: the last slot is over, neither completed nor withdrawn; complete; withdrawn
             * @example open
             * @enum {string}
             */
            status: "open" | "ended" | "complete" | "withdrawn";
            /** @example Night pickers */
            title: string;
            /** @description Spelled as the spec spells it */
            widthdrawn: boolean;
        };
        PortalOffersPage: {
            /**
             * @description Pass as `before` for the next page; null on the last
             * @example MTc2NDA3OTMwMjEyMzQ1NjowYjllM2MxYS01ZDdmLTRlMmEtOWM4Yi02YTVmNGUzZDJjMWI
             */
            nextCursor: string | null;
            offers: components["schemas"]["PortalOfferSummaryView"][];
        };
        PortalRecipientView: {
            /**
             * @description Empty until the offer is complete or withdrawn
             * @example
             * @enum {string}
             */
            confirmation: "" | "successful" | "unsuccessful" | "withdrawn";
            /**
             * @description Recipient entry id
             * @example 1042
             */
            id: number;
            /**
             * @description The worker’s name as the directory gave it when the offer was sent; absent if it had none
             * @example Ada Lovelace
             */
            name?: string;
            /**
             * @description When the current answer was given; null while awaiting
             * @example 2026-11-24T10:17:45.120Z
             */
            respondedAt: string | null;
            /**
             * @example applied
             * @enum {string}
             */
            response: "awaiting" | "applied" | "rejected";
            /** @example 3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20 */
            workerId: string;
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
             * Format: uuid
             * @description The sending organisation; its name is the directory’s (a worker’s session names the organisations they work with)
             * @example 8333fa9f-0801-4965-8862-bab6bda8a17c
             */
            organisationId: string;
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
            /** @description Body over 1 MiB */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    PortalOffersController_list: {
        parameters: {
            query?: {
                /** @description Cursor: the nextCursor of the previous page (opaque) */
                before?: string;
                /** @description Offers a page: 1 to 100, default 20 */
                limit?: number;
                status?: "open" | "ended" | "complete" | "withdrawn";
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of your offers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PortalOffersPage"];
                };
            };
            /** @description status, limit or before is malformed (named in errors) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description Missing, invalid or revoked portal token (API keys and worker tokens are not accepted) */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    PortalOffersController_get: {
        parameters: {
            query?: {
                /** @description Absent means 1.0; only 1.0 is accepted */
                "api-version"?: unknown;
            };
            header?: {
                /** @description The ETag of the document you have: 304 while it is current */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The offer (as GET /offer/{id}, plus status and answer times) */
            200: {
                headers: {
                    /** @description The document’s version; send it back as If-None-Match */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PortalOfferView"];
                };
            };
            /** @description Not modified since the ETag in If-None-Match; no body */
            304: {
                headers: {
                    /** @description The document’s version; send it back as If-None-Match */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or revoked portal token (API keys and worker tokens are not accepted) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer in your organisation (another organisation’s offers are not found either) */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    PortalOffersController_complete: {
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
        /** @description Worker ids who applied (spec 2.5) */
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
            /** @description Missing, invalid or revoked portal token (API keys and worker tokens are not accepted) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer in your organisation (another organisation’s offers are not found either) */
            404: {
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
        };
    };
    PortalOffersController_withdraw: {
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
            /** @description Missing, invalid or revoked portal token (API keys and worker tokens are not accepted) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["ProblemDetails"];
                };
            };
            /** @description No such offer in your organisation (another organisation’s offers are not found either) */
            404: {
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
            /** @description The service, or one behind it, could not reach what it needs (database-unavailable, directory-unavailable, service-unavailable); repeat the request after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before repeating */
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
