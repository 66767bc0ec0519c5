'use strict';
// The worker's V8 heap, fixed rather than sized from the machine. Node 24 (V8 13) sizes the young
// generation from the heap limit, and the heap limit from the memory it sees: on a host without a
// container limit (this 24 GiB machine) the worker with 10 000 idle plans settled at 1 073 MiB RSS,
// against 677 MiB under Node 20 with the same code. 16 MiB is the semi-space Node 20 used; 768 MiB
// of old space per isolate (the main thread and each workflow thread) is several times what the
// idle plans and the cache of 500 workflows hold. Measured: 639 MiB at 10 000 idle plans
// (docs/decisions/worker-heap-flags.md). Every launch of the worker passes these
// flags: the scripts here, package.json, docker-compose.yml and deploy/k8s (checked by
// test/unit/deploy/worker-node-flags.test.ts).
const WORKER_NODE_FLAGS = Object.freeze(['--max-semi-space-size=16', '--max-old-space-size=768']);

module.exports = { WORKER_NODE_FLAGS };
