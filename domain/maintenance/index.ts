// Pure domain logic of preventive maintenance plans (no I/O, no clock): safe in the workflow sandbox.
export * from './types';
export * from './instant';
export * from './calendar';
export * from './duration';
export * from './trigger';
export * from './counter';
export * from './condition';
export * from './condition-outcomes';
export * from './predictive';
export * from './schedule';
export * from './task-code';
export * from './compliance';
export * from './optimize';
