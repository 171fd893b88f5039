/**
 * The AVS and CVV result vocabulary every gateway's answer is mapped onto: the single-letter codes
 * of the card networks as ActiveMerchant's AVSResult and CVVResult name them, with their meaning.
 * An adapter maps its gateway's own result onto a letter; the kit adds the message.
 */

export const AVS_MESSAGES: Readonly<Record<string, string>> = {
  A: 'Street address matches, but postal code does not match.',
  B: 'Street address matches, but postal code not verified.',
  C: 'Street address and postal code do not match.',
  D: 'Street address and postal code match.',
  E: 'AVS data is invalid or AVS is not allowed for this card type.',
  F: "Card member's name does not match, but billing postal code matches.",
  G: 'Non-U.S. issuing bank does not support AVS.',
  H: "Card member's name does not match. Street address and postal code match.",
  I: 'Address not verified.',
  J: "Card member's name, billing address, and postal code match.",
  K: "Card member's name matches but billing address and billing postal code do not match.",
  L: "Card member's name and billing postal code match, but billing address does not match.",
  M: 'Street address and postal code match.',
  N: 'Street address and postal code do not match.',
  O: "Card member's name and billing address match, but billing postal code does not match.",
  P: 'Postal code matches, but street address not verified.',
  Q: "Card member's name, billing address, and postal code match.",
  R: 'System unavailable.',
  S: 'U.S.-issuing bank does not support AVS.',
  T: "Card member's name does not match, but street address matches.",
  U: 'Address information unavailable.',
  V: "Card member's name, billing address, and billing postal code match.",
  W: 'Street address does not match, but 9-digit postal code matches.',
  X: 'Street address and 9-digit postal code match.',
  Y: 'Street address and 5-digit postal code match.',
  Z: 'Street address does not match, but 5-digit postal code matches.',
};

export const CVV_MESSAGES: Readonly<Record<string, string>> = {
  D: 'Suspicious transaction',
  I: 'Failed data validation check',
  M: 'Match',
  N: 'No Match',
  P: 'Not Processed',
  S: 'Should have been present',
  U: 'Issuer unable to process request',
  X: 'Card does not support verification',
};

/** `avsCode` and `avsMessage` of a response for a standard letter (null, or a letter outside the vocabulary, is dropped). */
export function avsResult(code: string | null | undefined): { avsCode: string | null; avsMessage: string | null } {
  const letter = code?.toUpperCase();
  if (letter === undefined || !Object.hasOwn(AVS_MESSAGES, letter)) return { avsCode: null, avsMessage: null };
  return { avsCode: letter, avsMessage: AVS_MESSAGES[letter] ?? null };
}

/** `cvvCode` and `cvvMessage` of a response for a standard letter. */
export function cvvResult(code: string | null | undefined): { cvvCode: string | null; cvvMessage: string | null } {
  const letter = code?.toUpperCase();
  if (letter === undefined || !Object.hasOwn(CVV_MESSAGES, letter)) return { cvvCode: null, cvvMessage: null };
  return { cvvCode: letter, cvvMessage: CVV_MESSAGES[letter] ?? null };
}
