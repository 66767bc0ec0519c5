/**
 * A delivery's workflow task timeout follows how its receiver answered its latest attempts
 * (orchestration/webhooks.ts). The dispatcher's use of it, against PostgreSQL and Temporal:
 * test/workflows/outbox-dispatch.test.ts.
 */
import {
  DELIVERY_WORKFLOW_TASK_TIMEOUT,
  deliveryTaskTimeout,
  FAST_RECEIVER_DELIVERY_TASK_TIMEOUT,
  FAST_RECEIVER_MIN_ANSWERS,
  FAST_RECEIVER_SLOWEST_MS,
  RESPONSIVE_WORKER_START_TO_ATTEMPT_MS,
} from '../../../orchestration/webhooks';

describe('deliveryTaskTimeout', () => {
  it("hands a dead worker's task over sooner only for a receiver known to answer fast", () => {
    expect([DELIVERY_WORKFLOW_TASK_TIMEOUT, FAST_RECEIVER_DELIVERY_TASK_TIMEOUT]).toEqual(['5 seconds', '3 seconds']);
    expect(deliveryTaskTimeout(undefined)).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT); // no attempt yet
    expect(deliveryTaskTimeout({ answers: FAST_RECEIVER_MIN_ANSWERS - 1, slowestMs: 10 })).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT); // too few to know
    expect(deliveryTaskTimeout({ answers: FAST_RECEIVER_MIN_ANSWERS, slowestMs: 10 })).toBe(FAST_RECEIVER_DELIVERY_TASK_TIMEOUT);
    expect(deliveryTaskTimeout({ answers: 20, slowestMs: FAST_RECEIVER_SLOWEST_MS - 1 })).toBe(FAST_RECEIVER_DELIVERY_TASK_TIMEOUT);
    expect(deliveryTaskTimeout({ answers: 20, slowestMs: FAST_RECEIVER_SLOWEST_MS })).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT);
    expect(deliveryTaskTimeout({ answers: 20, slowestMs: 10_000 })).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT); // one attempt ran to its deadline
  });

  it('keeps the 5 s while the starting process is slow from a start to its first attempt (a worker starved of CPU)', () => {
    const fast = { answers: 20, slowestMs: 10 };
    expect(deliveryTaskTimeout(fast, undefined)).toBe(FAST_RECEIVER_DELIVERY_TASK_TIMEOUT); // nothing measured yet: an idle process
    expect(deliveryTaskTimeout(fast, RESPONSIVE_WORKER_START_TO_ATTEMPT_MS - 1)).toBe(FAST_RECEIVER_DELIVERY_TASK_TIMEOUT);
    expect(deliveryTaskTimeout(fast, RESPONSIVE_WORKER_START_TO_ATTEMPT_MS)).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT);
    expect(deliveryTaskTimeout(undefined, 10)).toBe(DELIVERY_WORKFLOW_TASK_TIMEOUT); // a responsive worker alone is not enough
  });
});
