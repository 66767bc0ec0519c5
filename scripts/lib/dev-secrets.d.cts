// Types for dev-secrets.cjs.
export interface DevSecrets {
  JWT_SECRET: string;
  INTERNAL_JWT_SECRET: string;
  DATA_ENCRYPTION_KEY: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  POSTGRES_PASSWORD: string;
  POSTGRES_APP_PASSWORD: string;
  DEMO_ADMIN_PASSWORD: string;
}
export declare function loadDevSecrets(file: string): DevSecrets;
export declare function randomSecrets(): DevSecrets;
export declare function parseEnvFile(text: string): Record<string, string>;
