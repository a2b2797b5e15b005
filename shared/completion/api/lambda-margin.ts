/** Time kept between the end of the work and the Lambda's own timeout, for the refund and the answer. */
export const LAMBDA_MARGIN_MS = 2_000;
