import { aiConfigMessages, suggestionFromModel, suggestWebhookConfig } from '../../../domain/webhooks/ai-config';
import { EVENT_TYPES } from '../../../domain/events/catalogue';
import { isValidEventType, validateEventPatterns, validateFilters } from '../../../domain/webhooks/matching';

const ASSET = '3f2a1b4c-1111-4222-8333-444455556666';

describe('built-in ai-config engine', () => {
  it('maps an alert use case to raised and resolved, with a filter on the asset named by id', () => {
    const s = suggestWebhookConfig(`Notify our SAP system when a vibration alert is raised on asset ${ASSET} and when it is resolved`);
    expect(s.events).toEqual(['asset.alert.raised', 'asset.alert.resolved']);
    expect(s.filters).toEqual({ 'data.asset_id': ASSET });
    expect(s.rationale[0]).toEqual({ event: 'asset.alert.raised', matched: ['alert', 'vibration', 'rais'] });
  });

  it('picks only the type whose action the text names', () => {
    expect(suggestWebhookConfig('Create a ticket in ServiceNow whenever a work order becomes overdue').events).toEqual(['task.overdue']);
    expect(suggestWebhookConfig('When a customer sends a WhatsApp message, push it to our CRM').events).toEqual(['conversation.message.received']);
  });

  it('uses wildcards when the text asks for all of a domain, and * for everything', () => {
    expect(suggestWebhookConfig('send all task and plan events to our data lake').events).toEqual(['task.*', 'maintenance.*']);
    expect(suggestWebhookConfig('forward all events').events).toEqual(['*']);
  });

  it('says so when nothing matches, and suggests nothing', () => {
    const s = suggestWebhookConfig('hello world');
    expect(s.events).toEqual([]);
    expect(s.filters).toEqual({});
    expect(s.notes[0]).toMatch(/^No event type of the catalogue matched/);
  });

  it('does not filter on a field a suggested type lacks', () => {
    const s = suggestWebhookConfig(`tell me when plans are paused and when tasks complete, for agent ${ASSET}`);
    expect(s.events).toEqual(['task.completed', 'maintenance.plan.paused']);
    expect(s.filters).toEqual({});
    expect(s.notes).toEqual(['Not every suggested event carries data.agent_id, so no filter on it was suggested.']);
  });

  it('always answers a configuration the API accepts, and the same one for the same text', () => {
    for (const text of ['alerts', 'all asset events', `alerts on asset ${ASSET}`, 'webhook failing', 'extraction done']) {
      const s = suggestWebhookConfig(text);
      expect(validateEventPatterns(s.events)).toEqual([]);
      expect(validateFilters(s.filters)).toEqual([]);
      expect(suggestWebhookConfig(text)).toEqual(s);
    }
  });

  it('the catalogue lists valid, distinct event types', () => {
    expect(EVENT_TYPES.every(isValidEventType)).toBe(true);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(['extraction.completed', 'conversation.closed', 'file.uploaded', 'csat.response.received', 'report.completed']));
    expect(EVENT_TYPES).toHaveLength(18);
  });
});

describe('language-model answers', () => {
  it("sends the catalogue and the rules, then keeps a valid answer (fenced or not) with the service's own format and headers", () => {
    const [system, user] = aiConfigMessages('alerts on line 3');
    expect(system.content).toContain('- asset.alert.raised: ');
    expect(user).toEqual({ role: 'user', content: 'alerts on line 3' });

    const s = suggestionFromModel('```json\n{"events": ["asset.alert.*"], "filters": {"data.asset_id": "a1"}, "rationale": "alerts only"}\n```');
    expect(s).toMatchObject({ events: ['asset.alert.*'], filters: { 'data.asset_id': 'a1' }, notes: ['alerts only'], rationale: [{ event: 'asset.alert.*', matched: [] }] });
    expect(s!.auth_headers).toEqual(suggestWebhookConfig('x').auth_headers);
    expect(suggestionFromModel('{"events": ["task.overdue"]}')!.filters).toEqual({});
  });

  it('refuses what is not a valid configuration', () => {
    for (const text of ['no json here', '{"events": []}', '{"events": ["maint*"]}', '{"events": ["*"], "filters": {"asset_id": 1}}', '{"events": "asset.created"}']) {
      expect(suggestionFromModel(text)).toBeUndefined();
    }
  });
});
