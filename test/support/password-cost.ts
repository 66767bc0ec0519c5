/**
 * The scrypt cost of password hashes in the tests: N=2^13 instead of OWASP's 2^17 (16 times
 * faster), because the suite creates and signs in hundreds of users. The API test stack's
 * processes get it as TEST_SCRYPT_LOG2_N (global-setup.ts); test processes set it through
 * password-cost-setup.ts.
 */
export const TEST_SCRYPT_LOG2_N = 13;
