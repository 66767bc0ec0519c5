// Setup file of the workflow and API projects: provisionTenant and createUser hash passwords in the
// test process itself, outside any app that would read TEST_SCRYPT_LOG2_N (password-cost.ts).
import { OWASP_SCRYPT, setPasswordHashParams } from '../../domain/auth/passwords';
import { TEST_SCRYPT_LOG2_N } from './password-cost';

setPasswordHashParams({ ...OWASP_SCRYPT, N: 2 ** TEST_SCRYPT_LOG2_N });
