// Jest globalTeardown of the `api` project: stops the stack of global-setup.ts (Jest runs it after
// failing tests too).
import { stopTestStack } from './test-stack';

export default async function globalTeardown(): Promise<void> {
  await stopTestStack();
}
