import { optimizePrompt } from '../../../domain/agents/prompt-optimizer';

const COMPLETE =
  'You are the maintenance assistant of the Bilbao plant. Answer only about pumps and compressors; never invent readings. ' +
  'Reply with at most 3 sentences in a professional tone, in Spanish. For any hazard, stop work and escalate to the shift supervisor.';

describe('optimizePrompt (built-in engine)', () => {
  it('adds every missing section to a bare prompt, each with its reason, in a fixed order', () => {
    const result = optimizePrompt({ systemPrompt: 'Help people with the pumps.', agentType: 'whatsapp' });
    expect(result.checks.map((c) => [c.id, c.passed])).toEqual([
      ['role', false],
      ['constraints', false],
      ['output_format', false],
      ['tone', false],
      ['language', false],
      ['safety', false],
      ['length', false],
    ]);
    expect(result.changes.map((c) => [c.check, c.action])).toEqual([
      ['role', 'added'],
      ['constraints', 'added'],
      ['output_format', 'added'],
      ['tone', 'added'],
      ['language', 'added'],
      ['safety', 'added'],
    ]);
    for (const change of result.changes) expect(change.why.length).toBeGreaterThan(20);
    const parts = result.suggestedPrompt.split('\n\n');
    expect(parts).toHaveLength(7);
    expect(parts[0]).toMatch(/^You are the WhatsApp assistant/);
    expect(parts[1]).toBe('Help people with the pumps.');
    expect(parts[3]).toMatch(/at most 3 short sentences/);
    expect(parts[5]).toBe("Language: reply in the language of the person's message.");
    expect(parts[6]).toMatch(/escalate to a human supervisor/);
    expect(result.checks.find((c) => c.id === 'length')?.detail).toMatch(/has 5 words \(under 15\)/);
  });

  it('leaves a prompt that passes every check unchanged', () => {
    const result = optimizePrompt({ systemPrompt: COMPLETE, agentType: 'email', language: 'es' });
    expect(result.checks.every((c) => c.passed)).toBe(true);
    expect(result.changes).toEqual([]);
    expect(result.suggestedPrompt).toBe(COMPLETE);
  });

  it('asks for the declared language when the prompt names another one', () => {
    const result = optimizePrompt({ systemPrompt: COMPLETE, language: 'pt' });
    expect(result.checks.find((c) => c.id === 'language')).toEqual({ id: 'language', passed: false, detail: 'The prompt does not ask for replies in Portuguese.' });
    expect(result.changes).toEqual([
      expect.objectContaining({ check: 'language', action: 'added', text: 'Language: always reply in Portuguese, whatever the language of the message.' }),
    ]);
  });

  it('uses the format of the agent type', () => {
    const machine = optimizePrompt({ systemPrompt: 'Watch the vibration alarms.', agentType: 'machine' });
    expect(machine.changes.find((c) => c.check === 'output_format')?.text).toMatch(/^Output format: one summary line naming the asset/);
    expect(machine.changes.find((c) => c.check === 'role')?.text).toMatch(/^You are a machine-monitoring agent/);
  });

  it('removes lines repeated word for word and reports them', () => {
    const prompt = `${COMPLETE}\nNever share customer data.\n  never share   customer data.\n`;
    const result = optimizePrompt({ systemPrompt: prompt, language: 'es' });
    expect(result.changes).toEqual([{ check: 'length', action: 'removed', text: 'never share   customer data.', why: expect.stringMatching(/repeats an earlier one/) }]);
    expect(result.suggestedPrompt).toBe(`${COMPLETE}\nNever share customer data.`);
    expect(result.checks.find((c) => c.id === 'length')).toMatchObject({ passed: false, detail: 'The prompt repeats 1 line(s) word for word.' });
  });

  it('flags an over-long prompt without cutting it', () => {
    const long = `${COMPLETE} ${'Pump P-101 feeds the cooling loop. '.repeat(300)}`.trim();
    const result = optimizePrompt({ systemPrompt: long, language: 'es' });
    expect(result.checks.find((c) => c.id === 'length')).toMatchObject({ passed: false, detail: expect.stringMatching(/^The prompt has 1\d{3} words \(over 1500\)/) });
    expect(result.suggestedPrompt).toBe(long);
  });

  it('is deterministic', () => {
    const input = { systemPrompt: 'Answer questions about compressors.', agentType: 'email' as const, language: 'de' };
    expect(optimizePrompt(input)).toEqual(optimizePrompt(input));
  });
});
