/**
 * One hour of one gateway in the overview's counts: its succeeded and unsuccessful gateway
 * transactions. `hour` is the UTC hour as ISO text, `YYYY-MM-DDTHH` (it sorts as text).
 */
export interface GatewayHourRollup {
  gatewayToken: string;
  hour: string;
  succeeded: number;
  failed: number;
}

/** One cell of the overview's aggregates: a gateway's transactions in one time bucket with one outcome. */
export interface GatewayVolumeCell {
  gatewayToken: string;
  /** The first characters of `createdAt`: `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days. */
  bucket: string;
  succeeded: boolean;
  count: number;
}
