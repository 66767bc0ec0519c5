/**
 * One stored text's redaction as steps with a time budget, shared by the redaction pool's threads
 * and its on-the-loop mode (infra/redaction-pool.ts): one chunk (domain/privacy/chunks.ts) per step.
 */
import { AUTO_REDACT_TYPES, applyRedaction, detectPiiSteps } from '../domain/privacy/pii';

export class ScanBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`the text could not be scanned for personal data within ${budgetMs / 1000} s`);
    this.name = 'ScanBudgetExceeded';
  }
}

/** The redacted text at the end; throws ScanBudgetExceeded at the first step past `budgetMs`. */
export function* budgetedRedaction(text: string, budgetMs: number): Generator<void, string> {
  const started = performance.now();
  const steps = detectPiiSteps(text, { types: AUTO_REDACT_TYPES });
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return applyRedaction(text, step.value);
    if (performance.now() - started > budgetMs) throw new ScanBudgetExceeded(budgetMs);
    yield;
  }
}
