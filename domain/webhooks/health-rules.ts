/** The rules of a webhook's health (SPEC.md), shared by the health activities and the API. */

/** An alert when a webhook's success rate stays below 50 % for 24 hours. */
export const LOW_SUCCESS_THRESHOLD = 0.5;
export const LOW_SUCCESS_WINDOW_HOURS = 24;
/** Fewer attempts than this in the window say too little to raise an alert. */
export const LOW_SUCCESS_MIN_ATTEMPTS = 5;
/** Delivery records are kept this long, then swept. */
export const DELIVERY_RETENTION_DAYS = 30;
