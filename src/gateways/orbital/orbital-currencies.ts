/**
 * The currencies Orbital takes: ISO 4217 numeric code and the exponent Orbital expects in
 * `CurrencyExponent` (its own, which differs from ISO 4217 for some: CLP and VND are sent with 2,
 * BYN and LAK with 0). Source: the currency table of the Orbital Gateway XML Interface
 * Specification, as ActiveMerchant's orbital_codes.rb records it. Currencies Orbital does not list
 * (the three-decimal ones among them: KWD, BHD, JOD, OMR, TND, IQD, LYD) are refused before sending.
 */
export const ORBITAL_CURRENCIES: Readonly<Record<string, readonly [numeric: string, exponent: number]>> = {
  AED: ['784', 2], AMD: ['051', 2], ANG: ['532', 2], ARS: ['032', 2], AUD: ['036', 2], AWG: ['533', 2], AZN: ['031', 2],
  BBD: ['052', 2], BDT: ['050', 2], BGN: ['975', 2], BIF: ['108', 0], BMD: ['060', 2], BND: ['096', 2], BOB: ['068', 2],
  BRL: ['986', 2], BSD: ['044', 2], BWP: ['072', 2], BYN: ['933', 0], BZD: ['084', 2], CAD: ['124', 2], CHF: ['756', 2],
  CLP: ['152', 2], CNY: ['156', 2], COP: ['170', 2], CRC: ['188', 2], CVE: ['132', 2], CZK: ['203', 2], DJF: ['262', 0],
  DKK: ['208', 2], DOP: ['214', 2], DZD: ['012', 2], EGP: ['818', 2], ETB: ['230', 2], EUR: ['978', 2], FJD: ['242', 2],
  FKP: ['238', 2], GBP: ['826', 2], GEL: ['981', 2], GHS: ['288', 2], GIP: ['292', 2], GMD: ['270', 2], GNF: ['324', 2],
  GTQ: ['320', 2], GYD: ['328', 2], HKD: ['344', 2], HNL: ['340', 2], HTG: ['332', 2], HUF: ['348', 2], IDR: ['360', 2],
  ILS: ['376', 2], INR: ['356', 2], JMD: ['388', 2], JPY: ['392', 0], KES: ['404', 2], KGS: ['417', 2], KHR: ['116', 2],
  KMF: ['174', 0], KRW: ['410', 0], KYD: ['136', 2], KZT: ['398', 2], LAK: ['418', 0], LBP: ['422', 2], LKR: ['144', 2],
  MAD: ['504', 2], MDL: ['498', 2], MNT: ['496', 2], MOP: ['446', 2], MUR: ['480', 2], MVR: ['462', 2], MWK: ['454', 2],
  MXN: ['484', 2], MYR: ['458', 2], MZN: ['508', 2], NAD: ['516', 2], NGN: ['566', 2], NIO: ['558', 2], NOK: ['578', 2],
  NPR: ['524', 2], NZD: ['554', 2], PAB: ['590', 2], PEN: ['604', 2], PGK: ['598', 2], PHP: ['608', 2], PKR: ['586', 2],
  PLN: ['985', 2], PYG: ['600', 0], QAR: ['634', 2], RON: ['946', 2], RUB: ['643', 2], RWF: ['646', 0], SAR: ['682', 2],
  SBD: ['090', 2], SCR: ['690', 2], SEK: ['752', 2], SGD: ['702', 2], SHP: ['654', 2], SOS: ['706', 2], STN: ['678', 2],
  SVC: ['222', 2], SZL: ['748', 2], THB: ['764', 2], TOP: ['776', 2], TRY: ['949', 2], TTD: ['780', 2], TWD: ['901', 2],
  TZS: ['834', 2], UAH: ['980', 2], UGX: ['800', 0], USD: ['840', 2], UYU: ['858', 2], UZS: ['860', 2], VND: ['704', 2],
  VUV: ['548', 0], WST: ['882', 2], XAF: ['950', 0], XCD: ['951', 2], XOF: ['952', 0], XPF: ['953', 0], YER: ['886', 2],
  ZAR: ['710', 2],
};

/** Orbital's exponent per currency, in the shape the kit's amount helpers take. */
export const ORBITAL_EXPONENTS: Readonly<Record<string, number>> = Object.fromEntries(Object.entries(ORBITAL_CURRENCIES).map(([code, [, exponent]]) => [code, exponent]));
