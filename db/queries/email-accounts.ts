/** Email accounts as inbound e-mail finds them: by the account id in the path, before any tenant is known. */
import type { ChannelStatus } from '../../domain/agents/agents';
import type { Queryable } from '../knex';

export interface ReceivingAccount {
  id: string;
  tenant_id: string;
  status: ChannelStatus;
  inbound_secret_encrypted: string | null;
}

export function receivingAccountById(db: Queryable, id: string): Promise<ReceivingAccount | undefined> {
  return db('email_accounts').where('id', id).first('id', 'tenant_id', 'status', 'inbound_secret_encrypted');
}
