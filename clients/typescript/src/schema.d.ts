/**
 * Generated from Coffer's OpenAPI document (GET /v1/openapi.json) by openapi-typescript.
 * Do not edit: run `npm run client:generate` at the repository root (clients/typescript/README.md).
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness */
        get: operations["get_healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (docs/metrics.md) */
        get: operations["get_metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness (the store answers) */
        get: operations["get_readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["get_v1_openapi.json"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List payment methods */
        get: operations["get_v1_payment_methods"];
        put?: never;
        /** Vault a payment method (AddPaymentMethod) */
        post: operations["post_v1_payment_methods"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/restricted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Tokenize from the browser with the environment key alone (card form) */
        post: operations["post_v1_payment_methods_restricted"];
        delete?: never;
        /** CORS preflight of browser tokenization */
        options: operations["options_v1_payment_methods_restricted"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/restricted/{token}/recache": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cache a CVV again from the card form's recache mode, with the environment key alone (pulled from the upstream first when the token is not here) */
        post: operations["post_v1_payment_methods_restricted_token_recache"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The environment's import jobs, newest first */
        get: operations["get_v1_payment_methods_imports"];
        put?: never;
        /**
         * Import payment methods from a file (JSON Lines or CSV, optionally OpenPGP-encrypted; docs/portability.md)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_payment_methods_imports"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/imports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An import job: progress and report */
        get: operations["get_v1_payment_methods_imports_id"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The environment's exports, newest first
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_payment_methods_exports"];
        put?: never;
        /**
         * Request an export of payment methods to a recipient OpenPGP key; it waits for a second admin (docs/portability.md)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_payment_methods_exports"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An export: its state, filter, recipient and who took each step
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_payment_methods_exports_id"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an export (an admin other than the requester: dual control)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_payment_methods_exports_id_approve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a pending export (its requester only); it never runs
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_payment_methods_exports_id_cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a pending export (an admin other than the requester: dual control); it never runs
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_payment_methods_exports_id_reject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/exports/{id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an approved export, once (JSON Lines, OpenPGP-encrypted to the recipient and signed)
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_payment_methods_exports_id_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/import_key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The environment's OpenPGP import key (armored public half)
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_environments_key_import_key"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a payment method */
        get: operations["get_v1_payment_methods_token"];
        /** Update non-sensitive fields */
        put: operations["put_v1_payment_methods_token"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/retain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Retain (RetainPaymentMethod) */
        put: operations["put_v1_payment_methods_token_retain"];
        /**
         * Retain (RetainPaymentMethod)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_payment_methods_token_retain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/redact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Redact (RedactPaymentMethod) */
        put: operations["put_v1_payment_methods_token_redact"];
        /**
         * Redact (RedactPaymentMethod)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_payment_methods_token_redact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/recache": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Cache a CVV again (RecacheSensitiveData) */
        put: operations["put_v1_payment_methods_token_recache"];
        /**
         * Cache a CVV again (RecacheSensitiveData)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_payment_methods_token_recache"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A payment method's transactions */
        get: operations["get_v1_payment_methods_token_transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways_options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Gateway types and what they support */
        get: operations["get_v1_gateways_options"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List gateways */
        get: operations["get_v1_gateways"];
        put?: never;
        /** Add a gateway */
        post: operations["post_v1_gateways"];
        delete?: never;
        /** Gateway types (the 2012 form of gateways_options) */
        options: operations["options_v1_gateways"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a gateway */
        get: operations["get_v1_gateways_token"];
        /** Update a gateway */
        put: operations["put_v1_gateways_token"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/redact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Redact a gateway (RedactGateway) */
        put: operations["put_v1_gateways_token_redact"];
        /**
         * Redact a gateway (RedactGateway)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_gateways_token_redact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/retain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Retain a gateway */
        put: operations["put_v1_gateways_token_retain"];
        /**
         * Retain a gateway
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_gateways_token_retain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A gateway's transactions */
        get: operations["get_v1_gateways_token_transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/purchase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Purchase */
        post: operations["post_v1_gateways_token_purchase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Authorize */
        post: operations["post_v1_gateways_token_authorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify */
        post: operations["post_v1_gateways_token_verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/store": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store at the gateway (third-party vaulting) */
        post: operations["post_v1_gateways_token_store"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gateways/{token}/general_credit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Credit without a reference */
        post: operations["post_v1_gateways_token_general_credit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}/capture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Capture an authorization */
        post: operations["post_v1_transactions_token_capture"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}/credit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund */
        post: operations["post_v1_transactions_token_credit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Void
         * @description Same as POST (clients differ).
         */
        put: operations["put_v1_transactions_token_void"];
        /** Void */
        post: operations["post_v1_transactions_token_void"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete a pending (3-D Secure or offsite) transaction */
        post: operations["post_v1_transactions_token_complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List transactions */
        get: operations["get_v1_transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a transaction */
        get: operations["get_v1_transactions_token"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/{token}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The scrubbed exchange with the gateway */
        get: operations["get_v1_transactions_token_transcript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers_options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Receiver types */
        get: operations["get_v1_receivers_options"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List receivers */
        get: operations["get_v1_receivers"];
        put?: never;
        /** Add a receiver */
        post: operations["post_v1_receivers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a receiver */
        get: operations["get_v1_receivers_token"];
        /** Update a receiver */
        put: operations["put_v1_receivers_token"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers/{token}/redact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Redact a receiver (RedactReceiver) */
        put: operations["put_v1_receivers_token_redact"];
        /**
         * Redact a receiver (RedactReceiver)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_receivers_token_redact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers/{token}/deliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver a payment method (DeliverPaymentMethod) */
        post: operations["post_v1_receivers_token_deliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receivers/{token}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Export payment methods over SFTP (ExportPaymentMethods) */
        post: operations["post_v1_receivers_token_export"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List certificates */
        get: operations["get_v1_certificates"];
        put?: never;
        /** Upload a certificate and its private key */
        post: operations["post_v1_certificates"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate a key and a CSR */
        post: operations["post_v1_certificates_generate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a certificate */
        get: operations["get_v1_certificates_token"];
        /** Attach the signed certificate */
        put: operations["put_v1_certificates_token"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/{token}/redact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Redact a certificate (erase its private key, pem and CSR) */
        put: operations["put_v1_certificates_token_redact"];
        /**
         * Redact a certificate (erase its private key, pem and CSR)
         * @description Same as PUT (clients differ).
         */
        post: operations["post_v1_certificates_token_redact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The events feed of the environment (newest first by default) */
        get: operations["get_v1_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show an event */
        get: operations["get_v1_events_id"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An event's callback delivery log */
        get: operations["get_v1_events_id_deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send an event's callbacks again */
        post: operations["post_v1_events_id_redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Events of every payment method */
        get: operations["get_v1_payment_methods_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One payment method's events */
        get: operations["get_v1_payment_methods_token_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/regenerate_signing_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a new callback signing secret (shown once)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_environments_key_regenerate_signing_secret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the environment's callback subscription
         * @description Needs an organization-wide admin access secret.
         */
        put: operations["put_v1_environments_key_callback"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_methods/{token}/access_log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who opened the payment method's card data, and why (docs/audit.md)
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_payment_methods_{token}_access_log"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log of the organization (portal actions, secret management)
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_audit_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List environments
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_environments"];
        put?: never;
        /**
         * Create an environment
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_environments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show an environment
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_environments_key"];
        /**
         * Rename an environment
         * @description Needs an organization-wide admin access secret.
         */
        put: operations["put_v1_environments_key"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/access_secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An environment's access secrets
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_environments_key_access_secrets"];
        put?: never;
        /**
         * Create an access secret
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_environments_key_access_secrets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/access_secrets/{secretKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an access secret
         * @description Needs an organization-wide admin access secret.
         */
        delete: operations["delete_v1_environments_key_access_secrets_secretKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The environment's workflows */
        get: operations["get_v1_workflows"];
        put?: never;
        /**
         * Create a routing workflow (AddWorkflow)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_workflows"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a workflow */
        get: operations["get_v1_workflows_key"];
        /**
         * Update a workflow (UpdateWorkflow); the fields sent replace the stored ones
         * @description Needs an organization-wide admin access secret.
         */
        put: operations["put_v1_workflows_key"];
        post?: never;
        /**
         * Remove a workflow (RemoveWorkflow)
         * @description Needs an organization-wide admin access secret.
         */
        delete: operations["delete_v1_workflows_key"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{key}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Dry run: which gateway a transaction would take and why (calls nothing, stores nothing) */
        post: operations["post_v1_workflows_key_explain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/purchase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Purchase routed by a workflow */
        post: operations["post_v1_transactions_purchase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Authorize routed by a workflow */
        post: operations["post_v1_transactions_authorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transactions/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify routed by a workflow */
        post: operations["post_v1_transactions_verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/upstream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The environment's upstream and the migration's progress
         * @description Needs an organization-wide admin access secret.
         */
        get: operations["get_v1_environments_key_upstream"];
        put?: never;
        post?: never;
        /**
         * Forget the environment's upstream (pull-through stops)
         * @description Needs an organization-wide admin access secret.
         */
        delete: operations["delete_v1_environments_key_upstream"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/environments/{key}/upstream/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copy every retained payment method of the upstream (resumable; honours 429 and Retry-After)
         * @description Needs an organization-wide admin access secret.
         */
        post: operations["post_v1_environments_key_upstream_backfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/upstream/intake": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Where the upstream delivers a card this Coffer asked for (one-time credential in X-Coffer-Intake-Credential) */
        post: operations["post_v1_upstream_intake"];
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
        /** @description XML: <errors><error key="…" attribute="…">message</error></errors> */
        Errors: {
            errors: components["schemas"]["Error"][];
        };
        Error: {
            /** @description Stable error key, e.g. errors.payment_method_not_found */
            key: string;
            message: string;
            /** @description The request field at fault, for field errors */
            attribute?: string;
        };
        /** @description A transaction (wire-reference §3.1). Scalars come first, nested objects after: the Ruby gem reads the first element of each name. */
        Transaction: {
            on_test_gateway?: boolean;
            token: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
            succeeded: boolean;
            /** @enum {string} */
            state: "succeeded" | "failed" | "gateway_processing_failed" | "gateway_processing_result_unknown" | "pending" | "processing" | "redacted";
            /** @description Purchase, Authorization, Capture, Credit, Void, Verification, Store, GeneralCredit, AddPaymentMethod, … */
            transaction_type: string;
            /** @description AddPaymentMethod only */
            retained?: boolean;
            order_id?: string | null;
            ip?: string | null;
            description?: string | null;
            email?: string | null;
            merchant_name_descriptor?: string | null;
            merchant_location_descriptor?: string | null;
            gateway_specific_fields?: {
                [key: string]: unknown;
            } | null;
            gateway_specific_response_fields?: {
                [key: string]: unknown;
            } | null;
            gateway_transaction_id?: string | null;
            gateway_latency_ms?: number | null;
            /** @description Minor units */
            amount?: number | null;
            currency_code?: string | null;
            retain_on_success?: boolean;
            payment_method_added?: boolean;
            stored_credential_initiator?: ("merchant" | "cardholder") | null;
            stored_credential_reason_type?: ("recurring" | "unscheduled" | "installment") | null;
            /** @description The card network id the gateway returned (kept from a CIT for later MITs) */
            network_transaction_id?: string | null;
            /** @description JSON only; XML carries it as <message key="…"> */
            message_key?: string | null;
            message: string | null;
            gateway_token?: string | null;
            gateway_type?: string | null;
            routed_by?: components["schemas"]["RoutedBy"];
            reference_token?: string | null;
            third_party_token?: string | null;
            url?: string;
            deliver_time_ms?: number | null;
            shipping_address?: {
                [key: string]: string | null;
            };
            response?: (components["schemas"]["GatewayResponse"] | {
                status: number;
                headers: string;
                body: string;
            }) | null;
            /** @description Every attempt of the retry chain this transaction belongs to, oldest first (only on chain members; docs/routing-retry.md) */
            attempts?: {
                token: string;
                state: string;
                succeeded: boolean;
                gateway_token: string | null;
                gateway_type: string | null;
                message_key?: string | null;
                message: string | null;
                error_code: string | null;
                /** @description Why the chain moved on to this attempt; null on the first */
                failover_reason: string | null;
                skipped_gateways: {
                    gateway_token: string;
                    reason: string;
                }[];
                /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
                created_at: string;
            }[];
            /** @description [{"failover_transaction":[url]}] on an attempt a retry chain moved on from */
            api_urls?: unknown[];
            /** @description This block only on 3-D Secure / offsite transactions */
            attempt_3dsecure?: boolean;
            three_ds_version?: string | null;
            three_ds_context?: string | null;
            required_action?: ("device_fingerprint" | "challenge" | "none") | null;
            challenge_url?: string | null;
            challenge_form?: string | null;
            device_fingerprint_form?: string | null;
            redirect_url?: string | null;
            callback_url?: string | null;
            callback_format?: string | null;
            checkout_url?: string | null;
            payment_method?: components["schemas"]["PaymentMethod"] | components["schemas"]["InvalidPaymentMethod"];
            basis_payment_method?: components["schemas"]["PaymentMethod"];
            receiver?: components["schemas"]["Receiver"];
            gateway?: components["schemas"]["Gateway"];
        };
        GatewayResponse: {
            success: boolean;
            message: string;
            avs_code: string | null;
            avs_message: string | null;
            cvv_code: string | null;
            cvv_message: string | null;
            pending: boolean;
            result_unknown: boolean;
            error_code: string | null;
            error_detail: string | null;
            cancelled: boolean;
            fraud_review: boolean | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        /** @description A payment method (wire-reference §3.2); card, bank account or third-party fields by payment_method_type (apple_pay and google_pay show the card fields of their DPAN; docs/wallets.md). Also shows the address fields (address1 … shipping_phone_number). */
        PaymentMethod: {
            token: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
            email: string | null;
            data: unknown | null;
            /** @enum {string} */
            storage_state: "cached" | "retained" | "redacted" | "used" | "closed";
            test: boolean;
            metadata: {
                [key: string]: string | number | boolean;
            } | null;
            callback_url: string | null;
            last_four_digits?: string | null;
            first_six_digits?: string | null;
            card_type?: string | null;
            first_name?: string | null;
            last_name?: string | null;
            month?: number | null;
            year?: number | null;
            full_name?: string | null;
            eligible_for_card_updater?: boolean | null;
            issuer_identification_number?: string | null;
            bank_name?: string | null;
            account_type?: string | null;
            account_holder_type?: string | null;
            routing_number_display_digits?: string | null;
            account_number_display_digits?: string | null;
            gateway_type?: string | null;
            third_party_token?: string | null;
            /** @enum {string} */
            payment_method_type: "credit_card" | "bank_account" | "third_party_token" | "sprel" | "apple_pay" | "google_pay";
            errors: components["schemas"]["Error"][];
            fingerprint?: string | null;
            /** @description XXX while a CVV is held, empty otherwise */
            verification_value?: string;
            /** @description Masked: XXXX-XXXX-XXXX-1111 */
            number?: string;
            routing_number?: string | null;
            account_number?: string | null;
        };
        /** @description An inline payment method that failed validation: nothing was vaulted */
        InvalidPaymentMethod: {
            token: null;
            storage_state: null;
            payment_method_type: string;
            errors: components["schemas"]["Error"][];
        };
        /** @description A gateway (wire-reference §3.3) */
        Gateway: {
            token: string;
            gateway_type: string;
            name: string;
            description: string | null;
            merchant_profile_key: string | null;
            sub_merchant_key: string | null;
            /** @description supports_* flags, each a boolean */
            characteristics: {
                [key: string]: boolean;
            };
            /** @description Only safe credentials carry a value */
            credentials: {
                name: string;
                value?: string | null;
            }[];
            gateway_settings: {
                [key: string]: unknown;
            };
            gateway_specific_fields: string[];
            payment_methods: string[];
            /** @enum {string} */
            state: "retained" | "redacted" | "cached";
            redacted: boolean;
            sandbox: boolean;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        GatewayOption: {
            gateway_type: string;
            name: string;
            auth_modes: unknown[];
            characteristics: {
                [key: string]: boolean;
            };
            payment_methods: string[];
            gateway_specific_fields: string[];
            supported_countries: string;
            supported_cardtypes?: string;
            regions: string;
            homepage?: string | null;
            company_name?: string | null;
        };
        /** @description A receiver (wire-reference §3.4) */
        Receiver: {
            receiver_type: string;
            token: string;
            /** @description Comma-separated scheme://host[:port] */
            hostnames: string;
            /** @enum {string} */
            state: "retained" | "redacted";
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
            company_name: string | null;
            sub_merchant_key: string | null;
            /** @description Safe credentials echo their value; others only their name */
            credentials: {
                name: string;
                value?: string;
                safe?: boolean;
            }[];
        };
        ReceiverOption: {
            name: string;
            receiver_type: string;
            hostnames: string | null;
            company_name: string | null;
            /** @enum {string} */
            protocol: "http" | "sftp";
            supports_deliver: boolean;
            supports_export: boolean;
            /** @description Accepts only test payment methods, in any environment */
            test: boolean;
        };
        Certificate: {
            token: string;
            level?: string;
            algorithm: string | null;
            cn: string | null;
            o: string | null;
            ou: string | null;
            c: string | null;
            st: string | null;
            l: string | null;
            email_address: string | null;
            public_key: string;
            public_key_hash: string;
            /** @description P-256 keys: base64 of the uncompressed point, as the Google Pay console asks for it (docs/wallets.md); null otherwise */
            google_pay_public_key: string | null;
            csr: string | null;
            pem: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        Environment: {
            key: string;
            name: string | null;
            production?: boolean;
            /** @description Origins the card form may be embedded in and tokenize from; empty: any */
            allowed_origins?: string[];
            /** @description The card form must be signed (nonce, timestamp, certificate token) */
            enhanced_iframe_security?: boolean;
            /** @description Google Pay's merchant id: tokens must be signed for merchant:<id> (docs/wallets.md) */
            google_pay_merchant_id?: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        AccessSecret: {
            key: string;
            name: string | null;
            role: string;
            /** @description null: every environment of the organization */
            environment_keys: string[] | null;
            /** @description Only in the response that created it */
            secret?: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        AuditEvent: {
            token: string;
            /** @enum {string} */
            actor_type: "user" | "access_secret" | "operator";
            actor: string;
            action: string;
            object_type: string;
            object_id: string | null;
            environment_key: string | null;
            address: string | null;
            details: {
                [key: string]: unknown;
            } | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description Pass as `before` for the next page */
            cursor: string;
        };
        CardAccess: {
            /** @description purchase, authorize, verify, store, general_credit, capture, void, credit, complete, deliver or export */
            operation: string;
            object_type: string;
            /** @description The transaction the card data was opened for */
            object_id: string | null;
            /** @enum {string} */
            actor_type: "access_secret" | "user" | "system";
            /** @description The access secret's key, the portal user's email, or coffer */
            actor: string;
            request_id: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description Pass as `before` for the next page */
            cursor: string;
        };
        Health: {
            status: string;
            store?: string;
            redis?: string;
        };
        Event: {
            id: string;
            /** @description The X-Request-Id of the request that made the change; null for the sweep and the CLI */
            request_id: string | null;
            event_type: string;
            object_type: string;
            object_key: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
        };
        CallbackSubscription: {
            /** @description http(s) URL the subscribed events are POSTed to; empty or null: none */
            url: string | null;
            /**
             * @description xml (default) or json
             * @enum {string}
             */
            format?: "xml" | "json";
            /** @description Event types to send; empty: every type. XML and forms: a space- or comma-separated list */
            event_types?: string[];
        };
        Delivery: {
            token: string;
            /** @enum {string} */
            kind: "event" | "transaction";
            url: string;
            /** @enum {string} */
            format: "xml" | "json";
            /** @enum {string} */
            state: "queued" | "delivered" | "abandoned";
            attempts_count: number;
            next_attempt_at: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            give_up_at: string;
            attempts: {
                attempt: number;
                status: number | null;
                latency_ms: number;
                error: string | null;
                /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
                created_at: string;
            }[];
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        PaymentMethodImport: {
            token: string;
            /** @enum {string} */
            state: "running" | "succeeded" | "failed";
            format: ("jsonl" | "csv") | null;
            encrypted: boolean;
            /** @description Rows read so far, numbered from 1 */
            rows: number;
            imported: number;
            /** @description The same token already held the same payment method */
            skipped: number;
            rejected: number;
            /** @description The first 10,000 refused rows */
            rejections: {
                row: number;
                reason: string;
                field: string | null;
            }[];
            /** @description Rows whose token did not fit, and the token they got */
            remapped: {
                row: number;
                old_token: string | null;
                new_token: string;
            }[];
            /** @description The lists were cut at 10,000 entries (the counts are whole) */
            truncated: boolean;
            /** @description Why the file as a whole was refused */
            error: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        ImportKey: {
            environment_key: string;
            fingerprint: string;
            /** @description Armored OpenPGP public key */
            public_key: string;
        };
        PaymentMethodExport: {
            token: string;
            /** @enum {string} */
            state: "pending" | "approved" | "downloading" | "downloaded" | "failed" | "cancelled" | "rejected" | "expired";
            /** @description The storage states exported (empty: retained and cached) */
            storage_state: ("retained" | "cached")[];
            created_from: string | null;
            created_to: string | null;
            /** @description Metadata every exported method matches */
            metadata: {
                [key: string]: string;
            };
            /** @description The recipient key's fingerprint: check it with the recipient before approving */
            recipient_fingerprint: string;
            recipient_user_ids: string[];
            /** @description Armored OpenPGP public key the file is encrypted to */
            recipient_public_key: string;
            requested_by: {
                /** @enum {string} */
                type: "access_secret" | "user";
                id: string;
            } | null;
            approved_by: {
                /** @enum {string} */
                type: "access_secret" | "user";
                id: string;
            } | null;
            downloaded_by: {
                /** @enum {string} */
                type: "access_secret" | "user";
                id: string;
            } | null;
            /** @description Who cancelled (the requester) or rejected (another admin) it while pending */
            closed_by: {
                /** @enum {string} */
                type: "access_secret" | "user";
                id: string;
            } | null;
            /** @description How many payment methods the file held (once downloaded) */
            payment_methods: number | null;
            error: string | null;
            /** @description The approval deadline while pending; the download deadline once approved */
            expires_at: string;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            created_at: string;
            approved_at: string | null;
            downloaded_at: string | null;
            /** @description When it was cancelled or rejected */
            closed_at: string | null;
            /** @description ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z */
            updated_at: string;
        };
        Workflow: {
            key: string;
            name: string;
            default: boolean;
            /** @enum {string} */
            retry_mode: "none" | "outage_only" | "standard";
            success_rate_routing: boolean;
            rules: {
                name: string;
                condition: {
                    [key: string]: unknown;
                };
                target: {
                    gateway_token?: string;
                    split?: {
                        gateway_token: string;
                        weight: number;
                    }[];
                };
            }[];
            default_target: {
                gateway_token?: string;
                split?: {
                    gateway_token: string;
                    weight: number;
                }[];
            };
            backup_gateway_tokens: string[];
            created_at: string;
            updated_at: string;
        };
        /** @description Transactions routed by a workflow only */
        RoutedBy: {
            workflow_key: string;
            /** @description The matching rule; null when the default target applied */
            rule: string | null;
            rule_index: number | null;
            /** @enum {string} */
            method: "single" | "weighted" | "success_rate" | "exploration";
            /** @description The gateway of the first attempt */
            gateway_token: string;
            /** @description The chain: first attempt, then backups */
            gateway_tokens: string[];
            reason: string;
        };
        Explanation: {
            workflow_key: string;
            facts: {
                [key: string]: unknown;
            };
            rules: {
                index: number;
                name: string;
                evaluated: boolean;
                matched: boolean;
                checks: {
                    [key: string]: unknown;
                }[];
            }[];
            rule: string | null;
            rule_index: number | null;
            target: {
                gateway_token?: string;
                split?: {
                    gateway_token: string;
                    weight: number;
                }[];
            };
            deterministic: boolean;
            /** @enum {string} */
            method: "single" | "weighted" | "success_rate" | "exploration";
            shares: {
                gateway_token: string;
                weight: number;
                probability: number;
            }[];
            gateway_token: string;
            gateway_tokens: string[];
            retry_mode: string;
            reason: string;
        };
        UpstreamStatus: {
            url: string;
            environment_key: string;
            public_url: string;
            receiver_token: string | null;
            created_at: string;
            updated_at: string;
            pulled_on_demand: number;
            backfilled: number;
            failed: number;
            remaining: number | null;
            backfill: {
                /** @enum {string} */
                state: "idle" | "running" | "done" | "interrupted";
                seen: number;
                backfilled: number;
                already_here: number;
                failed: number;
                since_token: string | null;
                started_at: string | null;
                finished_at: string | null;
                throttled_until: string | null;
            };
            failures: {
                payment_method_token: string;
                reason: string;
                at: string;
            }[];
        };
        IntakeResult: {
            payment_method_token: string;
            /** @enum {string} */
            outcome: "imported" | "skipped";
        };
        TransactionRequest: {
            amount?: unknown;
            currency_code?: string;
            payment_method_token?: string;
            credit_card?: unknown;
            bank_account?: unknown;
            apple_pay?: unknown;
            google_pay?: unknown;
            retain_on_success?: boolean;
            order_id?: string;
            description?: string;
            ip?: string;
            email?: string;
            merchant_name_descriptor?: string;
            merchant_location_descriptor?: string;
            gateway_specific_fields?: unknown;
            shipping_address?: unknown;
            attempt_3dsecure?: boolean;
            three_ds_version?: string;
            browser_info?: string;
            redirect_url?: string;
            callback_url?: string;
            /** @enum {string} */
            callback_format?: "xml" | "json";
            /** @enum {string} */
            stored_credential_initiator?: "merchant" | "cardholder";
            /** @enum {string} */
            stored_credential_reason_type?: "recurring" | "unscheduled" | "installment";
            retry?: {
                gateway_tokens: string[];
                /** @enum {string} */
                mode?: "standard" | "outage_only";
                custom_errors?: {
                    error_codes?: string[];
                    messages?: string[];
                    override_default_error_codes?: boolean;
                };
            };
        };
        RoutedTransactionRequest: {
            amount?: unknown;
            currency_code?: string;
            payment_method_token?: string;
            credit_card?: unknown;
            bank_account?: unknown;
            apple_pay?: unknown;
            google_pay?: unknown;
            retain_on_success?: boolean;
            order_id?: string;
            description?: string;
            ip?: string;
            email?: string;
            merchant_name_descriptor?: string;
            merchant_location_descriptor?: string;
            gateway_specific_fields?: unknown;
            shipping_address?: unknown;
            attempt_3dsecure?: boolean;
            three_ds_version?: string;
            browser_info?: string;
            redirect_url?: string;
            callback_url?: string;
            /** @enum {string} */
            callback_format?: "xml" | "json";
            /** @enum {string} */
            stored_credential_initiator?: "merchant" | "cardholder";
            /** @enum {string} */
            stored_credential_reason_type?: "recurring" | "unscheduled" | "installment";
            retry?: {
                gateway_tokens: string[];
                /** @enum {string} */
                mode?: "standard" | "outage_only";
                custom_errors?: {
                    error_codes?: string[];
                    messages?: string[];
                    override_default_error_codes?: boolean;
                };
            };
            workflow_key?: string;
        };
        PaymentMethodCreateRequest: {
            payment_method_type?: string;
            credit_card?: {
                first_name?: string;
                last_name?: string;
                address1?: string;
                address2?: string;
                city?: string;
                state?: string;
                zip?: string;
                country?: string;
                phone_number?: string;
                company?: string;
                shipping_address1?: string;
                shipping_address2?: string;
                shipping_city?: string;
                shipping_state?: string;
                shipping_zip?: string;
                shipping_country?: string;
                shipping_phone_number?: string;
                number?: string;
                verification_value?: string;
                full_name?: string;
                month?: number;
                year?: number;
                eligible_for_card_updater?: boolean;
                email?: string;
            };
            bank_account?: {
                first_name?: string;
                last_name?: string;
                full_name?: string;
                bank_name?: string;
                bank_routing_number?: string;
                bank_account_number?: string;
                bank_account_type?: string;
                bank_account_holder_type?: string;
            };
            apple_pay?: {
                payment_data?: unknown;
                test_card_number?: string;
            };
            google_pay?: {
                payment_data?: unknown;
                test_card_number?: string;
            };
            reference?: string;
            gateway_type?: string;
            email?: string;
            data?: unknown;
            metadata?: unknown;
            callback_url?: string;
            retained?: boolean;
            single_use?: boolean;
            eligible_for_card_updater?: boolean;
            allow_blank_name?: boolean;
            allow_expired_date?: boolean;
            allow_blank_date?: boolean;
        };
        PaymentMethodUpdateRequest: {
            first_name?: string;
            last_name?: string;
            address1?: string;
            address2?: string;
            city?: string;
            state?: string;
            zip?: string;
            country?: string;
            phone_number?: string;
            company?: string;
            shipping_address1?: string;
            shipping_address2?: string;
            shipping_city?: string;
            shipping_state?: string;
            shipping_zip?: string;
            shipping_country?: string;
            shipping_phone_number?: string;
            full_name?: string;
            bank_name?: string;
            bank_account_type?: string;
            bank_account_holder_type?: string;
            month?: number;
            year?: number;
            eligible_for_card_updater?: boolean;
            email?: string;
            data?: unknown;
            metadata?: unknown;
            callback_url?: string;
            allow_blank_name?: boolean;
            allow_expired_date?: boolean;
            allow_blank_date?: boolean;
        };
        RecacheRequest: {
            credit_card?: {
                verification_value?: string;
            };
            verification_value?: string;
        };
        RedactRequest: {
            remove_from_gateway?: string;
            remove_personal_data?: boolean;
        };
        GatewayRequest: {
            gateway_type?: string;
            description?: string;
            merchant_profile_key?: string;
            sub_merchant_key?: string;
            sandbox?: boolean;
            token?: string;
            gateway_settings?: {
                timeout_seconds?: number;
            };
        };
        ReceiverRequest: {
            receiver_type?: string;
            hostnames?: string;
            credentials?: {
                name: string;
                value: unknown;
                safe: unknown;
            }[];
            protocol?: {
                user?: string;
                password?: string;
                private_key?: string;
                host_key?: string;
            };
            sub_merchant_key?: string;
            certificate_token?: string;
        };
        DeliveryRequest: {
            payment_method_token?: string;
            url?: string;
            body?: string;
            headers?: string;
            request_method?: string;
            continue_caching?: boolean;
            encode_response?: boolean;
        };
        ExportRequest: {
            payment_method_tokens?: string[];
            url?: string;
            body?: string;
            callback_url?: string;
        };
        CertificateUploadRequest: {
            pem: string;
            private_key: string;
            /** @enum {string} */
            level?: "environment" | "organization";
        };
        CertificateGenerateRequest: {
            algorithm: unknown;
            /** @enum {string} */
            level?: "environment" | "organization";
            cn: string;
            o?: string;
            ou?: string;
            c?: string;
            st?: string;
            l?: string;
            email_address?: string;
        };
        CertificateUpdateRequest: {
            pem: string;
        };
        WorkflowRequest: {
            key?: string;
            name?: string;
            default?: boolean;
            /** @enum {string} */
            retry_mode?: "none" | "outage_only" | "standard";
            success_rate_routing?: boolean;
            rules?: {
                name?: string;
                condition?: {
                    card_brands?: string[];
                    currencies?: string[];
                    amount_min?: number;
                    amount_max?: number;
                    bin_prefixes?: string[];
                    bin_range?: {
                        from?: string;
                        to?: string;
                    };
                    payment_method_types?: string[];
                    metadata?: {
                        key?: string;
                        value?: string;
                    };
                };
                target?: {
                    gateway_token?: string;
                    split?: {
                        gateway_token?: string;
                        weight?: number;
                    }[];
                };
            }[];
            default_target?: {
                gateway_token?: string;
                split?: {
                    gateway_token?: string;
                    weight?: number;
                }[];
            };
            backup_gateway_tokens?: string[];
        };
        EnvironmentCreateRequest: {
            name: string;
        };
        EnvironmentUpdateRequest: {
            name?: string;
            enhanced_iframe_security?: boolean;
            google_pay_merchant_id?: string;
        };
        AccessSecretRequest: {
            name?: string;
            /** @enum {string} */
            role?: "admin" | "transact" | "read";
        };
        BackfillRequest: {
            restart?: boolean;
        };
        IntakeRequest: {
            payment_method_token?: string;
            number?: string;
            month?: string;
            year?: string;
            routing_number?: string;
            account_number?: string;
        };
        PaymentMethodExportRequest: {
            storage_state?: ("retained" | "cached")[];
            created_from?: unknown;
            created_to?: unknown;
            metadata?: {
                [key: string]: string | number | boolean;
            };
            /** @description The recipient's armored OpenPGP public key (the file is encrypted to it) */
            recipient_public_key: unknown;
        };
    };
    responses: {
        /** @description Unable to authenticate (exact message: see API.md) */
        Error401: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Environment not activated for real payment methods, or organization deactivated */
        Error402: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Forbidden (an unknown receiver_type) */
        Error403: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Not found */
        Error404: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description The Accept header does not allow the format of the suffix */
        Error406: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
        Error408: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description The Idempotency-Key is in use by a request still running, or its answer carried a secret and cannot be replayed; an export not yet approved, no longer pending, or cancelled or rejected */
        Error409: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description An export past its window, or already downloaded (docs/portability.md, "Exporting") */
        Error410: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Body over the route’s limit (docs/wire-compatibility.md, Request body limits) */
        Error413: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Content-Type does not match the suffix */
        Error415: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
        Error422: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Rate limited (Retry-After) */
        Error429: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description An internal error (the message names the request id, for the logs) */
        Error500: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description The upstream vault (live migration, docs/portability.md) cannot be reached */
        Error502: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
        /** @description Gateway circuit open or busy, store unavailable, master key unreachable (HSM), or vault sealed (docs/key-custody.md) */
        Error503: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
                "application/xml": components["schemas"]["Errors"];
            };
        };
    };
    parameters: {
        /** @description Records after this one, in the current order */
        since_token: string;
        order: "asc" | "desc";
        /** @description Page size, default 20, at most 100 */
        count: number;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    get_healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive (JSON only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    get_metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text format. Needs Authorization: Bearer <COFFER_METRICS_TOKEN>, never the API credentials; 404 unless the token is configured (or on the separate COFFER_METRICS_PORT) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            500: components["responses"]["Error500"];
        };
    };
    get_readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready (503 when the store does not answer; JSON only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            500: components["responses"]["Error500"];
            /** @description Gateway circuit open or busy, store unavailable, master key unreachable (HSM), or vault sealed (docs/key-custody.md) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | components["schemas"]["Health"];
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Health"];
                };
            };
        };
    };
    "get_v1_openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document of the v1 API (JSON only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    get_v1_payment_methods: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Comma-separated storage states (default retained) */
                state?: string;
                /** @description Only methods whose metadata key has this value */
                "metadata[key]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payment methods */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_methods: components["schemas"]["PaymentMethod"][];
                    };
                    "application/xml": components["schemas"]["PaymentMethod"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["PaymentMethodCreateRequest"];
                };
                "application/xml": components["schemas"]["PaymentMethodCreateRequest"];
            };
        };
        responses: {
            /** @description The AddPaymentMethod transaction wrapping the new payment method */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            /** @description A form post (application/x-www-form-urlencoded, the transparent redirect): to redirect_url with token=… or error=…, error_message=…, error_attribute=… in the query */
            302: {
                headers: {
                    /** @description redirect_url with the outcome in its query */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_restricted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["PaymentMethodCreateRequest"];
                };
                "application/xml": components["schemas"]["PaymentMethodCreateRequest"];
            };
        };
        responses: {
            /** @description The AddPaymentMethod transaction wrapping the new cached payment method */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    options_v1_payment_methods_restricted: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Allowed for the origin (Access-Control-* headers) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Error403"];
            500: components["responses"]["Error500"];
        };
    };
    post_v1_payment_methods_restricted_token_recache: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["RecacheRequest"];
                };
                "application/xml": components["schemas"]["RecacheRequest"];
            };
        };
        responses: {
            /** @description The RecacheSensitiveData transaction (422, same shape, when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
        };
    };
    get_v1_payment_methods_imports: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Import jobs with their progress */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_imports: components["schemas"]["PaymentMethodImport"][];
                    };
                    "application/xml": components["schemas"]["PaymentMethodImport"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_imports: {
        parameters: {
            query?: {
                /** @description jsonl or csv (found from the file otherwise) */
                format?: string;
                /** @description true to import expired cards */
                allow_expired?: string;
                /** @description The sender's armored public key: the file must be encrypted and signed by it */
                signed_by?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The import job, ended, with its report */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_import: components["schemas"]["PaymentMethodImport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodImport"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_imports_id: {
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
            /** @description The import job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_import: components["schemas"]["PaymentMethodImport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodImport"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_exports: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Exports with their state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_exports: components["schemas"]["PaymentMethodExport"][];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_exports: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method_export: components["schemas"]["PaymentMethodExportRequest"];
                };
                "application/xml": components["schemas"]["PaymentMethodExportRequest"];
            };
        };
        responses: {
            /** @description The export request, pending approval */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_export: components["schemas"]["PaymentMethodExport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_exports_id: {
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
            /** @description The export */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_export: components["schemas"]["PaymentMethodExport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_exports_id_approve: {
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
            /** @description The export, approved: it may be downloaded once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_export: components["schemas"]["PaymentMethodExport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_exports_id_cancel: {
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
            /** @description The export, cancelled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_export: components["schemas"]["PaymentMethodExport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_exports_id_reject: {
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
            /** @description The export, rejected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_export: components["schemas"]["PaymentMethodExport"];
                    };
                    "application/xml": components["schemas"]["PaymentMethodExport"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_exports_id_download: {
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
            /** @description The OpenPGP message (binary) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/pgp-encrypted": string;
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            410: components["responses"]["Error410"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_environments_key_import_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The public key to encrypt import files to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        import_key: components["schemas"]["ImportKey"];
                    };
                    "application/xml": components["schemas"]["ImportKey"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment method */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method: components["schemas"]["PaymentMethod"];
                    };
                    "application/xml": components["schemas"]["PaymentMethod"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_payment_methods_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["PaymentMethodUpdateRequest"];
                };
                "application/xml": components["schemas"]["PaymentMethodUpdateRequest"];
            };
        };
        responses: {
            /** @description The payment method */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method: components["schemas"]["PaymentMethod"];
                    };
                    "application/xml": components["schemas"]["PaymentMethod"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_payment_methods_token_retain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RetainPaymentMethod transaction (422, same shape, on a redacted method) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_token_retain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RetainPaymentMethod transaction (422, same shape, on a redacted method) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_payment_methods_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["RedactRequest"];
                };
                "application/xml": components["schemas"]["RedactRequest"];
            };
        };
        responses: {
            /** @description The RedactPaymentMethod transaction (422, same shape, when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["RedactRequest"];
                };
                "application/xml": components["schemas"]["RedactRequest"];
            };
        };
        responses: {
            /** @description The RedactPaymentMethod transaction (422, same shape, when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_payment_methods_token_recache: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["RecacheRequest"];
                };
                "application/xml": components["schemas"]["RecacheRequest"];
            };
        };
        responses: {
            /** @description The RecacheSensitiveData transaction (422, same shape, when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_payment_methods_token_recache: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    payment_method: components["schemas"]["RecacheRequest"];
                };
                "application/xml": components["schemas"]["RecacheRequest"];
            };
        };
        responses: {
            /** @description The RecacheSensitiveData transaction (422, same shape, when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_token_transactions: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
            };
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transactions, in the shape of GET /v1/transactions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transactions: components["schemas"]["Transaction"][];
                    };
                    "application/xml": components["schemas"]["Transaction"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_gateways_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every gateway type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateways: components["schemas"]["GatewayOption"][];
                    };
                    "application/xml": components["schemas"]["GatewayOption"][];
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    get_v1_gateways: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of gateways */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateways: components["schemas"]["Gateway"][];
                    };
                    "application/xml": components["schemas"]["Gateway"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    gateway: components["schemas"]["GatewayRequest"];
                };
                "application/xml": components["schemas"]["GatewayRequest"];
            };
        };
        responses: {
            /** @description The gateway; credentials go as flat fields beside gateway_type */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateway: components["schemas"]["Gateway"];
                    };
                    "application/xml": components["schemas"]["Gateway"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    options_v1_gateways: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every gateway type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateways: components["schemas"]["GatewayOption"][];
                    };
                    "application/xml": components["schemas"]["GatewayOption"][];
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    get_v1_gateways_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The gateway */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateway: components["schemas"]["Gateway"];
                    };
                    "application/xml": components["schemas"]["Gateway"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_gateways_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    gateway: components["schemas"]["GatewayRequest"];
                };
                "application/xml": components["schemas"]["GatewayRequest"];
            };
        };
        responses: {
            /** @description The gateway */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateway: components["schemas"]["Gateway"];
                    };
                    "application/xml": components["schemas"]["Gateway"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_gateways_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RedactGateway transaction wrapping the gateway; its state reads redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RedactGateway transaction wrapping the gateway; its state reads redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_gateways_token_retain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The gateway */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateway: components["schemas"]["Gateway"];
                    };
                    "application/xml": components["schemas"]["Gateway"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_retain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The gateway */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        gateway: components["schemas"]["Gateway"];
                    };
                    "application/xml": components["schemas"]["Gateway"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_gateways_token_transactions: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Comma-separated states: succeeded, failed, gateway_processing_failed, gateway_processing_result_unknown, pending, processing */
                state?: string;
            };
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transactions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transactions: components["schemas"]["Transaction"][];
                    };
                    "application/xml": components["schemas"]["Transaction"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_purchase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction (422 with the same body when the gateway declines) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_authorize: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction (422 with the same body when the gateway declines) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_verify: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction (422 with the same body when the gateway declines) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_store: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction (422 with the same body when the gateway declines) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_gateways_token_general_credit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction (422 with the same body when the gateway declines) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_token_capture: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The new transaction, reference_token naming the one it refers to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_token_credit: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The new transaction, reference_token naming the one it refers to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_transactions_token_void: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The new transaction, reference_token naming the one it refers to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_token_void: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The new transaction, reference_token naming the one it refers to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_token_complete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The same transaction, finished (422 with it when it failed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_transactions: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Comma-separated states: succeeded, failed, gateway_processing_failed, gateway_processing_result_unknown, pending, processing */
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transactions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transactions: components["schemas"]["Transaction"][];
                    };
                    "application/xml": components["schemas"]["Transaction"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_transactions_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_transactions_token_transcript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Plain text whatever the suffix; errors are XML unless Accept asks for JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_receivers_options: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every receiver type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receivers: components["schemas"]["ReceiverOption"][];
                    };
                    "application/xml": components["schemas"]["ReceiverOption"][];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
        };
    };
    get_v1_receivers: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of receivers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receivers: components["schemas"]["Receiver"][];
                    };
                    "application/xml": components["schemas"]["Receiver"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_receivers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    receiver: components["schemas"]["ReceiverRequest"];
                };
                "application/xml": components["schemas"]["ReceiverRequest"];
            };
        };
        responses: {
            /** @description The receiver */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receiver: components["schemas"]["Receiver"];
                    };
                    "application/xml": components["schemas"]["Receiver"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            403: components["responses"]["Error403"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_receivers_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The receiver */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receiver: components["schemas"]["Receiver"];
                    };
                    "application/xml": components["schemas"]["Receiver"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_receivers_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    receiver: components["schemas"]["ReceiverRequest"];
                };
                "application/xml": components["schemas"]["ReceiverRequest"];
            };
        };
        responses: {
            /** @description The receiver */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receiver: components["schemas"]["Receiver"];
                    };
                    "application/xml": components["schemas"]["Receiver"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_receivers_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RedactReceiver transaction wrapping the receiver; its state reads redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_receivers_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The RedactReceiver transaction wrapping the receiver; its state reads redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_receivers_token_deliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    delivery: components["schemas"]["DeliveryRequest"];
                };
                "application/xml": components["schemas"]["DeliveryRequest"];
            };
        };
        responses: {
            /** @description The DeliverPaymentMethod transaction (422, same shape, when the receiver fails; 408 when it did not answer in time) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_receivers_token_export: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    export: components["schemas"]["ExportRequest"];
                };
                "application/xml": components["schemas"]["ExportRequest"];
            };
        };
        responses: {
            /** @description The pending ExportPaymentMethods transaction */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_certificates: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of certificates */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificates: components["schemas"]["Certificate"][];
                    };
                    "application/xml": components["schemas"]["Certificate"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_certificates: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    certificate: components["schemas"]["CertificateUploadRequest"];
                };
                "application/xml": components["schemas"]["CertificateUploadRequest"];
            };
        };
        responses: {
            /** @description The certificate (never the key) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_certificates_generate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    certificate: components["schemas"]["CertificateGenerateRequest"];
                };
                "application/xml": components["schemas"]["CertificateGenerateRequest"];
            };
        };
        responses: {
            /** @description The certificate with its csr */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_certificates_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_certificates_token: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    certificate: components["schemas"]["CertificateUpdateRequest"];
                };
                "application/xml": components["schemas"]["CertificateUpdateRequest"];
            };
        };
        responses: {
            /** @description The certificate */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_certificates_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate, pem and csr null; a receiver or signed tokenization naming it now fails with errors.certificate_redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_certificates_token_redact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate, pem and csr null; a receiver or signed tokenization naming it now fails with errors.certificate_redacted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        certificate: components["schemas"]["Certificate"];
                    };
                    "application/xml": components["schemas"]["Certificate"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_events: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Only events of this type (e.g. TransactionSucceeded) */
                event_type?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: components["schemas"]["Event"][];
                    };
                    "application/xml": components["schemas"]["Event"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_events_id: {
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
            /** @description The event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        event: components["schemas"]["Event"];
                    };
                    "application/xml": components["schemas"]["Event"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_events_id_deliveries: {
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
            /** @description The deliveries with each attempt (status, latency; never the body) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: components["schemas"]["Delivery"][];
                    };
                    "application/xml": components["schemas"]["Delivery"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_events_id_redeliver: {
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
            /** @description The deliveries, queued again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: components["schemas"]["Delivery"][];
                    };
                    "application/xml": components["schemas"]["Delivery"][];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_events: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Only events of this type (e.g. TransactionSucceeded) */
                event_type?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payment-method events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_events: components["schemas"]["Event"][];
                    };
                    "application/xml": components["schemas"]["Event"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_payment_methods_token_events: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
                /** @description Only events of this type (e.g. TransactionSucceeded) */
                event_type?: string;
            };
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the payment method’s events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        payment_method_events: components["schemas"]["Event"][];
                    };
                    "application/xml": components["schemas"]["Event"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_environments_key_regenerate_signing_secret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The environment, with `signing_secret` (only in this answer) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        environment: components["schemas"]["Environment"];
                    };
                    "application/xml": components["schemas"]["Environment"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_environments_key_callback: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    callback: components["schemas"]["CallbackSubscription"];
                };
                "application/xml": components["schemas"]["CallbackSubscription"];
            };
        };
        responses: {
            /** @description The subscription */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        callback: components["schemas"]["CallbackSubscription"];
                    };
                    "application/xml": components["schemas"]["CallbackSubscription"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "get_v1_payment_methods_{token}_access_log": {
        parameters: {
            query?: {
                /** @description Cursor of the last record of the previous page */
                before?: string;
                /** @description Up to 100 (default 20) */
                count?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of access records, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_log: components["schemas"]["CardAccess"][];
                    };
                    "application/xml": components["schemas"]["CardAccess"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_audit_events: {
        parameters: {
            query?: {
                /** @description Only events of this actor */
                user?: string;
                /** @description Only this action */
                action?: string;
                /** @description From this date (inclusive) */
                from?: string;
                /** @description Up to this date (inclusive) */
                to?: string;
                /** @description Cursor of the last event of the previous page */
                before?: string;
                /** @description Up to 100 (default 20) */
                count?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        audit_events: components["schemas"]["AuditEvent"][];
                    };
                    "application/xml": components["schemas"]["AuditEvent"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_environments: {
        parameters: {
            query?: {
                /** @description Records after this one, in the current order */
                since_token?: components["parameters"]["since_token"];
                order?: components["parameters"]["order"];
                /** @description Page size, default 20, at most 100 */
                count?: components["parameters"]["count"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of environments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        environments: components["schemas"]["Environment"][];
                    };
                    "application/xml": components["schemas"]["Environment"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_environments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    environment: components["schemas"]["EnvironmentCreateRequest"];
                };
                "application/xml": components["schemas"]["EnvironmentCreateRequest"];
            };
        };
        responses: {
            /** @description The environment */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        environment: components["schemas"]["Environment"];
                    };
                    "application/xml": components["schemas"]["Environment"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_environments_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The environment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        environment: components["schemas"]["Environment"];
                    };
                    "application/xml": components["schemas"]["Environment"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_environments_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    environment: components["schemas"]["EnvironmentUpdateRequest"];
                };
                "application/xml": components["schemas"]["EnvironmentUpdateRequest"];
            };
        };
        responses: {
            /** @description The environment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        environment: components["schemas"]["Environment"];
                    };
                    "application/xml": components["schemas"]["Environment"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            502: components["responses"]["Error502"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_environments_key_access_secrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The access secrets (never the secrets themselves) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_secrets: components["schemas"]["AccessSecret"][];
                    };
                    "application/xml": components["schemas"]["AccessSecret"][];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_environments_key_access_secrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    access_secret: components["schemas"]["AccessSecretRequest"];
                };
                "application/xml": components["schemas"]["AccessSecretRequest"];
            };
        };
        responses: {
            /** @description The access secret, with the secret (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_secret: components["schemas"]["AccessSecret"];
                    };
                    "application/xml": components["schemas"]["AccessSecret"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    delete_v1_environments_key_access_secrets_secretKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
                secretKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_workflows: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every workflow, in creation order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workflows: components["schemas"]["Workflow"][];
                    };
                    "application/xml": components["schemas"]["Workflow"][];
                };
            };
            401: components["responses"]["Error401"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_workflows: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    workflow: components["schemas"]["WorkflowRequest"];
                };
                "application/xml": components["schemas"]["WorkflowRequest"];
            };
        };
        responses: {
            /** @description The workflow */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workflow: components["schemas"]["Workflow"];
                    };
                    "application/xml": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_workflows_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workflow: components["schemas"]["Workflow"];
                    };
                    "application/xml": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    put_v1_workflows_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    workflow: components["schemas"]["WorkflowRequest"];
                };
                "application/xml": components["schemas"]["WorkflowRequest"];
            };
        };
        responses: {
            /** @description The workflow */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workflow: components["schemas"]["Workflow"];
                    };
                    "application/xml": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    delete_v1_workflows_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workflow as it was */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workflow: components["schemas"]["Workflow"];
                    };
                    "application/xml": components["schemas"]["Workflow"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_workflows_key_explain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["TransactionRequest"];
                };
                "application/xml": components["schemas"]["TransactionRequest"];
            };
        };
        responses: {
            /** @description The rule-by-rule evaluation and the decision */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        explanation: components["schemas"]["Explanation"];
                    };
                    "application/xml": components["schemas"]["Explanation"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_purchase: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["RoutedTransactionRequest"];
                };
                "application/xml": components["schemas"]["RoutedTransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction that settled the chain, with routed_by (422 with the same body on a decline) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_authorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["RoutedTransactionRequest"];
                };
                "application/xml": components["schemas"]["RoutedTransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction that settled the chain, with routed_by (422 with the same body on a decline) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_transactions_verify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    transaction: components["schemas"]["RoutedTransactionRequest"];
                };
                "application/xml": components["schemas"]["RoutedTransactionRequest"];
            };
        };
        responses: {
            /** @description The transaction that settled the chain, with routed_by (422 with the same body on a decline) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Transaction"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            /** @description The gateway did not answer in time (the transaction, state gateway_processing_result_unknown) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            /** @description Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Errors"] | {
                        transaction: components["schemas"]["Transaction"];
                    };
                    "application/xml": components["schemas"]["Errors"] | components["schemas"]["Transaction"];
                };
            };
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    get_v1_environments_key_upstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Settings (never the secret), pulled on demand, backfilled, remaining, failures */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        upstream: components["schemas"]["UpstreamStatus"];
                    };
                    "application/xml": components["schemas"]["UpstreamStatus"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    delete_v1_environments_key_upstream: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cleared */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_environments_key_upstream_backfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    backfill: components["schemas"]["BackfillRequest"];
                };
                "application/xml": components["schemas"]["BackfillRequest"];
            };
        };
        responses: {
            /** @description Started (200 when one was running already); progress at GET …/upstream */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        upstream: components["schemas"]["UpstreamStatus"];
                    };
                    "application/xml": components["schemas"]["UpstreamStatus"];
                };
            };
            401: components["responses"]["Error401"];
            402: components["responses"]["Error402"];
            404: components["responses"]["Error404"];
            406: components["responses"]["Error406"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    post_v1_upstream_intake: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    intake: components["schemas"]["IntakeRequest"];
                };
                "application/xml": components["schemas"]["IntakeRequest"];
            };
        };
        responses: {
            /** @description The token and whether it was imported or already here (never a card value) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        intake: components["schemas"]["IntakeResult"];
                    };
                    "application/xml": components["schemas"]["IntakeResult"];
                };
            };
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
        };
    };
}
