/**
 * One conversation (`conversation/<tenant>/<conversation>`): the inbound paths signal each stored
 * message with signal-with-start after their commit. Each message is answered in order: a CSAT
 * score reply is recorded and acknowledged, anything else goes to the agent (tools, reply); the
 * answer is stored pending and then delivered by an activity that retries transient failures
 * without end. After IDLE_CLOSE without a message (24 h: WhatsApp's customer-service window), or
 * when a person closes it, the conversation is closed, `conversation.closed` emitted, and the CSAT
 * invitation (if a survey applies) sent. History holds ids only.
 */
import { ActivityFailure, condition, continueAsNew, defineQuery, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ConversationActivities } from '../activities/conversations';

export interface ConversationWorkflowInput {
  tenantId: string;
  conversationId: string;
  /** Messages carried over a continue-as-new. */
  pendingMessageIds?: string[];
}

export interface ConversationState {
  answered: number;
  pending: number;
  closing: boolean;
}

export type ConversationResult = { answered: number; closedBy: 'idle' | 'person' };

/** Idle time after which the conversation closes: WhatsApp's 24-hour customer-service window. */
export const IDLE_CLOSE = '24 hours';

export const inboundMessageSignal = defineSignal<[{ messageId: string }]>('inboundMessage');
export const closeConversationSignal = defineSignal<[]>('closeConversation');
export const conversationStateQuery = defineQuery<ConversationState>('conversationState');

const { answerInboundMessage, closeConversation, prepareSurvey } = proxyActivities<ConversationActivities>({
  startToCloseTimeout: '2 minutes',
  // Database outages are retried without end: a stored message is never left unanswered.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Provider outages are retried for up to a day (a reply later than that helps nobody, and
// WhatsApp's customer-service window is 24 h); then the message is marked undelivered and the
// conversation goes on. Credential and permanent refusals are results, not errors.
const { deliverMessage } = proxyActivities<ConversationActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});
const { markMessageUndelivered } = proxyActivities<ConversationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Delivers a message, or records that it could not be delivered in the time budget. */
async function deliverOrGiveUp(ref: { tenantId: string; messageId: string }): Promise<void> {
  try {
    await deliverMessage(ref);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await markMessageUndelivered(ref);
  }
}

export async function conversationWorkflow(input: ConversationWorkflowInput): Promise<ConversationResult> {
  const { tenantId, conversationId } = input;
  const pending: string[] = [...(input.pendingMessageIds ?? [])];
  // Redelivered messages are signalled again; each is answered once per run.
  const seen = new Set<string>(pending);
  let closeRequested = false;
  let answered = 0;

  setHandler(inboundMessageSignal, ({ messageId }) => {
    if (seen.has(messageId)) return;
    seen.add(messageId);
    pending.push(messageId);
  });
  setHandler(closeConversationSignal, () => {
    closeRequested = true;
  });
  setHandler(conversationStateQuery, () => ({ answered, pending: pending.length, closing: closeRequested }));

  const answerPending = async (): Promise<void> => {
    for (let messageId = pending.shift(); messageId !== undefined; messageId = pending.shift()) {
      const outcome = await answerInboundMessage({ tenantId, conversationId, messageId });
      if (outcome.kind === 'skipped') continue;
      answered += 1;
      await deliverOrGiveUp({ tenantId, messageId: outcome.replyId });
    }
  };

  for (;;) {
    await answerPending();
    if (closeRequested) break;
    const active = await condition(() => pending.length > 0 || closeRequested, IDLE_CLOSE);
    if (!active) break;
    if (workflowInfo().continueAsNewSuggested && !closeRequested) {
      await continueAsNew<typeof conversationWorkflow>({ tenantId, conversationId, pendingMessageIds: [...pending] });
    }
  }

  const closedBy = closeRequested ? 'person' : 'idle';
  await closeConversation({ tenantId, conversationId, reason: closedBy === 'person' ? 'closed_by_person' : 'idle' });
  const survey = await prepareSurvey({ tenantId, conversationId });
  if (survey.messageId) await deliverOrGiveUp({ tenantId, messageId: survey.messageId });
  // Messages stored before the close but signalled during it are still answered.
  await answerPending();
  return { answered, closedBy };
}
