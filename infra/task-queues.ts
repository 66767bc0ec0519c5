/** Task queue names, in one place: the worker polls them, the API and schedules start work on them. */
export const TASK_QUEUES = {
  /** Entity workflows (maintenance plans), notifications, privacy jobs and their activities. */
  main: 'industrial-ops',
} as const;
export type TaskQueue = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];
