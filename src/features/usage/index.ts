/**
 * The usage feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { meterVerification, notBilled, refundMetering, releaseMetering, type Billing } from './metering.js';
export { monthOf } from './plans.js';
