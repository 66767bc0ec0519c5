/** `tokens`: mint, list, revoke service tokens (services/service-tokens.ts). */
import { Command, Option } from 'commander';
import { SERVICE_SCOPES } from '../../domain/auth/tokens';
import { listServiceTokens, mintServiceToken, revokeServiceTokenAsOperator, type ServiceTokenRecord } from '../../services/service-tokens';
import { UsageError } from '../errors';
import { fields, pageText, table } from '../output';
import { durationSeconds, pageOf, withPage } from '../options';
import type { Perform } from '../perform';

function tokenStatus(row: ServiceTokenRecord, now = new Date()): 'live' | 'expired' | 'revoked' {
  if (row.revoked_at) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'live';
}

export function tokenJson(row: ServiceTokenRecord) {
  return {
    jti: row.jti,
    service: row.service_id,
    scopes: row.scopes,
    tenants: row.tenant_ids ?? '*',
    status: tokenStatus(row),
    issued_at: row.issued_at,
    expires_at: row.expires_at,
    issued_by: row.issued_by,
    revoked_at: row.revoked_at,
    revoked_by: row.revoked_by,
  };
}

export function registerTokens(program: Command, perform: Perform): void {
  const tokens = program.command('tokens').description('mint, list and revoke service tokens (the internal API\'s bearer tokens, aud "internal")');

  tokens
    .command('mint')
    .description('a scoped service token that expires; printed once (it is not stored), its id recorded')
    .requiredOption('--service <name>', "who holds it: a service's name (the token's subject, as the audit trail names it)")
    .addOption(new Option('--scope <scope...>', 'what it may do').choices(SERVICE_SCOPES).makeOptionMandatory())
    .option('--tenant <id...>', 'the tenants it may act for (ids)')
    .option('--all-tenants', "every tenant (an operator's own tooling, e.g. monitoring of /internal/health)")
    .requiredOption('--ttl <duration>', 'how long it lives, ISO 8601 (PT1H, P30D; at most P90D)', durationSeconds)
    .addHelpText('after', '\nExample: tokens mint --service monitoring --scope health:read --all-tenants --ttl P30D')
    .action((options: { service: string; scope: string[]; tenant?: string[]; allTenants?: boolean; ttl: number }, command: Command) =>
      perform(command, async (rt) => {
        if (Boolean(options.tenant) === Boolean(options.allTenants)) throw new UsageError('give either --tenant <id...> or --all-tenants');
        const minted = await mintServiceToken(
          rt.db(),
          rt.config().secrets.internalJwt,
          { serviceId: options.service, scopes: options.scope, tenants: options.allTenants ? '*' : options.tenant!, ttlSeconds: options.ttl },
          rt.operator,
        );
        const json = { token: minted.token, jti: minted.jti, service: minted.serviceId, scopes: minted.scopes, tenants: minted.tenants, expires_at: minted.expiresAt };
        const text = `${fields([
          ['id (jti)', minted.jti],
          ['service', minted.serviceId],
          ['scopes', minted.scopes],
          ['tenants', minted.tenants],
          ['expires at', minted.expiresAt],
        ])}\n\nthe token (shown once; send it as "Authorization: Bearer <token>"):\n${minted.token}`;
        return { json, text };
      }),
    );

  withPage(
    tokens.command('list').description('the service tokens minted here, newest first: live ones only unless --all').option('--all', 'also the expired and the revoked ones'),
  ).action((options: { all?: boolean; limit: number; skip: number }, command: Command) =>
    perform(command, async (rt) => {
      const page = await listServiceTokens(rt.db(), !options.all, pageOf(options));
      const rows = table(page.items, [
        ['jti', (t) => t.jti],
        ['service', (t) => t.service_id],
        ['scopes', (t) => t.scopes.join(' ')],
        ['tenants', (t) => (t.tenant_ids ? t.tenant_ids.length : '*')],
        ['status', (t) => tokenStatus(t)],
        ['expires at', (t) => t.expires_at],
      ]);
      return { json: { ...page, items: page.items.map(tokenJson) }, text: pageText(page, rows) };
    }),
  );

  tokens
    .command('revoke')
    .description('revoke a service token by its id (its jti): refused by every API process within seconds')
    .argument('<jti>', "the token's id")
    .action((jti: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const revoked = await revokeServiceTokenAsOperator(rt.db(), jti, rt.operator);
        return { json: revoked, text: `revoked ${revoked.jti} at ${revoked.revoked_at.toISOString()} (by ${revoked.revoked_by})` };
      }),
    );
}
