// Entry of the worker's workflow bundle: every workflow type the worker runs.
export { notificationWorkflow } from './notification';
