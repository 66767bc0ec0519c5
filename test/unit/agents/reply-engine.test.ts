import { AgentTool, assetReference, composeReply, planReply } from '../../../domain/agents/reply-engine';

const health: AgentTool = { id: 't1', name: 'asset_health', kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'object', properties: {} } };
const workOrders: AgentTool = { id: 't2', name: 'work_orders', kind: 'built_in', builtin: 'create_maintenance_task', parameters: { type: 'object', properties: {} } };
const orderStatus: AgentTool = {
  id: 't3',
  name: 'order_status',
  kind: 'http',
  url: 'https://erp.example.com/status',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};
const tools = [health, workOrders, orderStatus];

describe('assetReference', () => {
  it.each([
    ['How is pump P-101 doing?', 'P-101'],
    ['status of SN4411A please', 'SN4411A'],
    ['how is the cooling pump doing today?', 'cooling pump'],
    ['The boiler feed valve is leaking', 'boiler feed valve'],
    ['hello', null],
  ])('%s -> %s', (text, ref) => expect(assetReference(text)).toBe(ref));
});

describe('planReply', () => {
  it('asks get_asset_health about the named asset', () => {
    expect(planReply('How is pump P-101?', tools)).toEqual({ intent: 'asset_health', assetRef: 'P-101', call: { tool: health, arguments: { asset: 'P-101' } } });
  });

  it('opens a work order with high priority for a leak, medium otherwise', () => {
    expect(planReply('Pump P-101 is leaking!', tools)).toEqual({
      intent: 'work_order',
      assetRef: 'P-101',
      call: { tool: workOrders, arguments: { asset: 'P-101', priority: 'high' } },
    });
    expect(planReply('Please create a work order for fan F-2', tools)).toMatchObject({ call: { arguments: { asset: 'F-2', priority: 'medium' } } });
  });

  it('calls an http tool whose name words all appear, with the message as its query', () => {
    expect(planReply('What is the status of my order 55?', tools)).toEqual({
      intent: 'http_tool',
      call: { tool: orderStatus, arguments: { query: 'What is the status of my order 55?' } },
    });
  });

  it('plans no call when the agent lacks the tool, and recognises greetings and the rest', () => {
    expect(planReply('How is pump P-101?', [])).toEqual({ intent: 'asset_health', assetRef: 'P-101', call: null });
    expect(planReply('Good morning!', tools)).toEqual({ intent: 'greeting' });
    expect(planReply('I would like to talk to someone', tools)).toEqual({ intent: 'fallback' });
  });
});

describe('composeReply', () => {
  it('words the tool results', () => {
    const plan = planReply('How is pump P-101?', tools);
    expect(composeReply(plan, { ok: true, result: { asset_name: 'Pump P-101', health_score: 72, status: 'fair', open_alerts: 2 } }, 'Desk', tools)).toBe(
      'Pump P-101 is fair with a health score of 72/100 and 2 open alerts.',
    );
    expect(composeReply(plan, { ok: false, error: 'asset_not_found' }, 'Desk', tools)).toBe(
      'I could not find an asset matching "P-101". Could you send its name or serial number?',
    );
    const order = planReply('Pump P-101 is leaking', tools);
    expect(composeReply(order, { ok: true, result: { task_code: 'CM-000004', priority: 'high', asset_name: 'Pump P-101' } }, 'Desk', tools)).toBe(
      'I opened work order CM-000004 (high priority) for Pump P-101. A technician will take it from here.',
    );
  });

  it('greets with what the agent can do', () => {
    expect(composeReply({ intent: 'greeting' }, null, 'Desk', [health])).toBe('Hello! I\'m Desk. I can check the health of an asset (e.g. "how is pump P-101?").');
    expect(composeReply({ intent: 'fallback' }, null, 'Desk', [])).toBe('Thanks for your message. A colleague will follow up on your message.');
  });
});
