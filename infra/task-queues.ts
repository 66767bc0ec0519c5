/** Task queue names, in one place: the worker polls them, the API and schedules start work on them. */
export const TASK_QUEUES = {
  /** Entity workflows (maintenance plans), notifications, privacy jobs and their activities. */
  main: 'industrial-ops',
  /** Webhook delivery workflows and their HTTP attempts: a burst of deliveries cannot delay other work. */
  webhooks: 'industrial-ops-webhooks',
} as const;
export type TaskQueue = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];
