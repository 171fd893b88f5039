import type { StandardErrorCode } from '../kit/index.js';

/**
 * Orbital's result codes in Coffer's vocabulary. Sources: the Orbital Gateway XML Interface
 * Specification (RespCode, HostRespCode, ProcStatus, AVSRespCode and CVV2RespCode tables) and
 * ActiveMerchant's Orbital adapter (its list of approving RespCodes, and its reading of each AVS
 * code as a postal and street match). The letter chosen for each AVS code is Coffer's reading of
 * that match pair (docs/gateways/orbital.md).
 */

/** RespCodes that approve an authorization (ProcStatus 0 is needed as well). */
export const APPROVED_RESP_CODES: ReadonlySet<string> = new Set(['00', '08', '11', '24', '26', '27', '28', '29', '31', '32', '34', '91', '92', '93', '94', 'E7', 'PA', 'P1']);

/**
 * HostRespCode (the Salem/Stratus 3-digit reason code, or the PNS/Tandem issuer code) and then
 * RespCode → standard code. Declines not listed are `card_declined`.
 */
export const DECLINE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  // Stratus (Salem) response reason codes, HostRespCode
  '201': 'incorrect_number', // Invalid CC number
  '202': 'invalid_amount', // Bad amount
  '203': 'invalid_amount', // Zero amount
  '204': 'processing_error', // Other error
  '238': 'processing_error', // Invalid currency
  '301': 'processing_error', // Issuer unavailable
  '303': 'card_declined', // Processor decline
  '401': 'call_issuer', // Call
  '402': 'call_issuer', // Default call
  '501': 'pickup_card', // Pickup
  '502': 'pickup_card', // Card reported lost/stolen
  '503': 'pickup_card', // Fraud / security violation
  '509': 'insufficient_funds', // Over the limit
  '521': 'insufficient_funds', // Insufficient funds
  '522': 'expired_card', // Card is expired
  '530': 'card_declined', // Do not honor
  '531': 'incorrect_cvc', // CVV2/VAK failure
  '572': 'account_closed', // Revocation of all authorizations: closed account
  '591': 'incorrect_number', // Invalid CC number
  '592': 'invalid_amount', // Bad amount
  '605': 'invalid_expiry_date', // Invalid expiration date
  '607': 'invalid_amount', // Invalid amount
  '754': 'account_closed', // Account closed
  '833': 'config_error', // Invalid merchant
  '903': 'invalid_expiry_date', // Invalid expiration
  // RespCode (two characters; the ones shared with ISO 8583 issuer codes)
  '01': 'call_issuer', // Refer to issuer
  '02': 'call_issuer', // Refer to issuer, special condition
  '03': 'config_error', // Invalid merchant
  '04': 'pickup_card', // Pick up
  '05': 'card_declined', // Do not honor
  '06': 'processing_error', // Error
  '07': 'pickup_card', // Pick up, special condition
  '12': 'processing_error', // Invalid transaction type
  '13': 'invalid_amount', // Bad amount
  '14': 'incorrect_number', // Invalid credit card number
  '15': 'incorrect_number', // No such issuer
  '33': 'expired_card', // Card is expired
  '41': 'pickup_card', // Lost / stolen
  '43': 'pickup_card', // Stolen
  '51': 'insufficient_funds', // Insufficient funds
  '54': 'expired_card', // Expired card
  '55': 'incorrect_cvc', // CVV2 failure
  '82': 'incorrect_cvc', // CVV2 failure (PNS)
};

/**
 * ProcStatus of a request Orbital refused before any authorization (QuickResp) → standard code;
 * the rest are `processing_error`.
 */
export const PROC_STATUS_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '20412': 'config_error', // Precondition Failed: Security Information (connection username/password, merchant) missing or wrong
  '9714': 'config_error', // Invalid connection username/password
  '833': 'config_error', // Invalid merchant
  '840': 'invalid_expiry_date', // Error validating expiration date
  '841': 'invalid_number', // Error validating card/account number range
  '885': 'invalid_amount', // Error validating amount
  '881': 'processing_error', // The LIDM (OrderID) does not match an existing transaction
  '9806': 'processing_error', // Refund by TxRefNum of something not an authorization
};

/**
 * AVSRespCode → the network letter with the same postal/street outcome (ActiveMerchant's reading
 * of each code). Orbital pads the code with a space ("H "), trimmed before the lookup.
 */
export const AVS_LETTERS: Readonly<Record<string, string>> = {
  '1': 'I', // No address supplied
  '2': 'E', // Bill-to address did not pass edit checks
  '3': 'I', // AVS not performed
  '4': 'S', // Issuer does not participate in AVS
  '5': 'E', // Edit error: AVS data invalid
  '6': 'R', // System unavailable or time-out
  '7': 'U', // Address information unavailable
  '8': 'E', // Transaction ineligible for AVS
  '9': 'X', // Zip, Zip+4 and locale match
  A: 'W', // Zip and Zip+4 match, locale does not
  B: 'Y', // Zip matches, Zip+4 does not, locale matches
  C: 'Z', // Zip matches, Zip+4 and locale do not
  D: 'A', // Zip does not match, Zip+4 and locale do
  E: 'N', // Zip and locale do not match
  F: 'A', // Zip and Zip+4 do not match, locale matches
  G: 'N', // No match at all
  H: 'Y', // Zip and locale match
  J: 'G', // Issuer does not participate in global AVS
  JA: 'D', // International street address and postal code match
  JB: 'B', // International street address matches, postal code not verified
  JC: 'I', // International street address and postal code not verified
  JD: 'P', // International postal code matches, street address not verified
  M1: 'U', // Cardholder name matches (nothing about the address)
  M2: 'V', // Name, address and postal code match
  M3: 'L', // Name and postal code match
  M4: 'O', // Name and address match
  M5: 'H', // Name wrong, address and postal code match
  M6: 'F', // Name wrong, postal code matches
  M7: 'T', // Name wrong, address matches
  M8: 'N', // Name, address and postal code all wrong
  N3: 'B', // Address matches, ZIP not verified
  N4: 'I', // Not verified: incompatible formats
  N5: 'D', // Address and ZIP match (international)
  N6: 'I', // Address not verified (international)
  N7: 'P', // ZIP matches, address not verified
  N8: 'D', // Address and ZIP match (international)
  N9: 'D', // Address and ZIP match (UK)
  R: 'S', // Issuer does not participate in AVS
  UK: 'U', // Unknown
  X: 'X', // Zip, Zip+4 and address match
  Z: 'Z', // Zip matches, locale does not
};

/** CVV2RespCode → standard letter (Orbital's Y is "invalid" like I). */
export const CVV_LETTERS: Readonly<Record<string, string>> = { M: 'M', N: 'N', P: 'P', S: 'S', U: 'U', I: 'I', Y: 'I' };

/** Brands whose CVV is announced with CardSecValInd 1 (the specification asks it of Visa and Discover; Diners settles as Discover). */
export const CARD_SEC_VAL_IND_BRANDS: ReadonlySet<string> = new Set(['visa', 'discover', 'diners_club']);
