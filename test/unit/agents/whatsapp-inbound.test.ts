import { inboundMessages, isWhatsappPayload, receivingNumbers } from '../../../domain/agents/whatsapp-inbound';

// The shape of the WhatsApp Cloud API's "messages" webhook, with a status update beside it.
const payload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
            messages: [
              { from: '16505551234', id: 'wamid.A', timestamp: '1749416383', type: 'text', text: { body: 'Does it come in another color?' } },
              { from: '16505551234', id: 'wamid.B', timestamp: '1749416390', type: 'image', image: { id: '1', mime_type: 'image/jpeg' } },
              { from: 'not-a-number', id: 'wamid.C', timestamp: '1749416390', type: 'text', text: { body: 'x' } },
            ],
          },
        },
        { field: 'messages', value: { metadata: { phone_number_id: '999999' }, statuses: [{ id: 'wamid.X', status: 'delivered' }] } },
        { field: 'account_update', value: { metadata: { phone_number_id: '777777' } } },
      ],
    },
  ],
};

describe('WhatsApp Cloud API payloads', () => {
  it('recognises the payload object', () => {
    expect(isWhatsappPayload(payload)).toBe(true);
    expect(isWhatsappPayload({ object: 'page', entry: [] })).toBe(false);
    expect(isWhatsappPayload('x')).toBe(false);
  });

  it('names every receiving number of a messages change, status-only ones included', () => {
    expect(receivingNumbers(payload)).toEqual(['106540352242922', '999999']);
  });

  it('reads text and media messages with the sender in E.164 and the profile name; skips malformed senders', () => {
    expect(inboundMessages(payload)).toEqual([
      {
        phoneNumberId: '106540352242922',
        providerMessageId: 'wamid.A',
        fromPhone: '+16505551234',
        profileName: 'Sheena Nelson',
        body: 'Does it come in another color?',
        sentAt: new Date(1749416383000),
      },
      {
        phoneNumberId: '106540352242922',
        providerMessageId: 'wamid.B',
        fromPhone: '+16505551234',
        profileName: 'Sheena Nelson',
        body: '[image message]',
        sentAt: new Date(1749416390000),
      },
    ]);
  });
});
