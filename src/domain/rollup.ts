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
