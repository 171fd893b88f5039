// Its own module so that reading the wallet configuration at start-up does not load the Apple Pay
// verifier (and its ASN.1 libraries) before an Apple Pay token is first decrypted.

/** Apple suggests refusing tokens signed more than a few minutes ago (replays): five by default. */
export const DEFAULT_SIGNING_TIME_WINDOW_MS = 5 * 60 * 1000;
