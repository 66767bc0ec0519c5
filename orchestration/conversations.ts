/**
 * Client side of conversation workflows (workflows/conversation.ts): the inbound paths signal
 * each stored message, and a person's close signals the close, both with signal-with-start so a
 * conversation whose workflow ended (or never ran) gets one. Ids only.
 */
import type { Client } from '@temporalio/client';
import { resourceSearchAttributes } from '../infra/search-attributes';
import { tenantPriority } from '../infra/task-fairness';
import { TASK_QUEUES } from '../infra/task-queues';
import { workflowIds } from '../infra/workflow-ids';
import { closeConversationSignal, inboundMessageSignal, type conversationWorkflow } from '../workflows/conversation';

export interface ConversationRef {
  tenantId: string;
  conversationId: string;
}

const startOptions = (ref: ConversationRef) => ({
  taskQueue: TASK_QUEUES.main,
  workflowId: workflowIds.conversation(ref.tenantId, ref.conversationId),
  args: [{ tenantId: ref.tenantId, conversationId: ref.conversationId }] as [{ tenantId: string; conversationId: string }],
  typedSearchAttributes: resourceSearchAttributes(ref.tenantId, ref.conversationId),
  priority: tenantPriority(ref.tenantId),
});

export async function signalInboundMessage(client: Client, ref: ConversationRef & { messageId: string }): Promise<void> {
  await client.workflow.signalWithStart<typeof conversationWorkflow, [{ messageId: string }]>('conversationWorkflow', {
    ...startOptions(ref),
    signal: inboundMessageSignal,
    signalArgs: [{ messageId: ref.messageId }],
  });
}

export async function signalConversationClose(client: Client, ref: ConversationRef): Promise<void> {
  await client.workflow.signalWithStart<typeof conversationWorkflow, []>('conversationWorkflow', {
    ...startOptions(ref),
    signal: closeConversationSignal,
    signalArgs: [],
  });
}
