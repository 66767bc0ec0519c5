/** `tenants`: create, list, show, set-plan, suspend, resume (services/tenants.ts). */
import { Argument, Command, Option } from 'commander';
import { PASSWORD_MIN_LENGTH } from '../../domain/auth/passwords';
import { isPlanName, PLAN_NAMES, type PlanName } from '../../domain/tenancy/plans';
import { changePlan, createTenant, listTenants, requireTenant, resourceUsage, setSuspended, type ResourceUsage, type TenantRow } from '../../services/tenants';
import { assertPassword, loginEmail } from '../../services/users';
import { UsageError } from '../errors';
import { fields, pageText, table, type Reply } from '../output';
import { pageOf, secretSource, withPage, withPassword } from '../options';
import type { Perform } from '../perform';
import { readSecret } from '../secrets';

/** A tenant as the CLI answers it (JSON field names are the contract). */
export function tenantJson(row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.plan,
    status: row.suspended_at ? ('suspended' as const) : ('active' as const),
    suspended_at: row.suspended_at,
    created_at: row.created_at,
  };
}

const tenantFields = (row: TenantRow) =>
  fields([
    ['id', row.id],
    ['name', row.name],
    ['slug', row.slug],
    ['plan', row.plan],
    ['status', tenantJson(row).status],
    ['suspended at', row.suspended_at],
    ['created at', row.created_at],
  ]);

const usageJson = (usage: ResourceUsage) => ({ resource: usage.resource, count: usage.count, limit: usage.limit });
const usageTable = (usage: readonly ResourceUsage[]) =>
  table(usage, [
    ['resource', (u) => u.resource],
    ['count', (u) => u.count],
    ['limit', (u) => u.limit ?? 'unlimited'],
  ]);

const planOption = () => new Option('--plan <plan>', 'the plan').choices(PLAN_NAMES).makeOptionMandatory();

function plan(value: string): PlanName {
  if (!isPlanName(value)) throw new UsageError(`the plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

export function registerTenants(program: Command, perform: Perform): void {
  const tenants = program.command('tenants').description('create, list, show, change the plan of, suspend and resume tenants');

  withPassword(
    tenants
      .command('create')
      .description(`a tenant and its first admin (the admin's password: asked, or --password-stdin / --password-file; ${PASSWORD_MIN_LENGTH}+ characters)`)
      .requiredOption('--name <name>', "the tenant's name")
      .addOption(planOption())
      .requiredOption('--admin-email <email>', "the first admin's e-mail address (their login)")
      .option('--admin-name <name>', "the first admin's name", 'Administrator')
      .option('--slug <slug>', 'the tenant slug (default: from the name)'),
  ).action((options: { name: string; plan: string; adminEmail: string; adminName: string; slug?: string; passwordStdin?: boolean; passwordFile?: string }, command: Command) =>
    perform(command, async (rt): Promise<Reply> => {
      // The rules login applies, checked before the password is asked for.
      const adminEmail = loginEmail(options.adminEmail);
      const password = await readSecret("admin's password", secretSource(options), { confirm: true });
      assertPassword(password);
      const created = await createTenant(rt.db(), rt.actor, {
        name: options.name,
        slug: options.slug,
        plan: plan(options.plan),
        adminEmail,
        adminPassword: password,
        adminName: options.adminName,
      });
      const json = { tenant_id: created.tenant_id, admin_user_id: created.admin_user_id, slug: created.slug, plan: created.plan };
      return { json, text: `created tenant ${created.slug} (${created.tenant_id}) on the ${created.plan} plan; admin ${adminEmail} (${created.admin_user_id})` };
    }),
  );

  withPage(
    tenants
      .command('list')
      .description('tenants, oldest first')
      .addOption(new Option('--status <status>', 'only the active or the suspended ones').choices(['active', 'suspended'])),
  ).action((options: { status?: 'active' | 'suspended'; limit: number; skip: number }, command: Command) =>
    perform(command, async (rt) => {
      const page = await listTenants(rt.db(), options.status, pageOf(options));
      const rows = table(page.items, [
        ['id', (t) => t.id],
        ['slug', (t) => t.slug],
        ['plan', (t) => t.plan],
        ['status', (t) => tenantJson(t).status],
        ['created at', (t) => t.created_at],
      ]);
      return { json: { ...page, items: page.items.map(tenantJson) }, text: pageText(page, rows) };
    }),
  );

  tenants
    .command('show')
    .description('a tenant, and what it holds of each resource its plan limits')
    .argument('<tenant>', "the tenant's id or slug")
    .action((ref: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const tenant = await requireTenant(rt.db(), ref);
        const usage = await rt.inTenant(tenant.id, ({ scope }) => resourceUsage(scope.db, tenant.id, tenant.plan));
        return { json: { ...tenantJson(tenant), usage: usage.map(usageJson) }, text: `${tenantFields(tenant)}\n\n${usageTable(usage)}` };
      }),
    );

  tenants
    .command('set-plan')
    .description("change a tenant's plan (what it holds beyond a smaller plan's limits is kept; no more can be created)")
    .argument('<tenant>', "the tenant's id or slug")
    .addArgument(new Argument('<plan>', 'the new plan').choices(PLAN_NAMES))
    .action((ref: string, planName: string, _options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const next = plan(planName);
        const tenant = await requireTenant(rt.db(), ref);
        const change = await rt.inTenant(tenant.id, ({ context }) => changePlan(rt.db(), context, next));
        const json = { tenant: tenantJson(change.tenant), previous_plan: change.previous, over_limit: change.overLimit.map(usageJson) };
        const over = change.overLimit.length ? `\nbeyond the ${next} plan's limits (kept; no more can be created):\n${usageTable(change.overLimit)}` : '';
        return { json, text: `${change.tenant.slug}: plan ${change.previous} -> ${change.tenant.plan}${over}` };
      }),
    );

  for (const [verb, suspended, description] of [
    [
      'suspend',
      true,
      "suspend a tenant: its logins, tokens and service tokens are refused (403 TENANT_SUSPENDED), its outbox is held, its scheduled reports and agents' answers stop; its data stays",
    ],
    ['resume', false, 'resume a suspended tenant: access again, its held outbox events are dispatched in order'],
  ] as const) {
    tenants
      .command(verb)
      .description(description)
      .argument('<tenant>', "the tenant's id or slug")
      .action((ref: string, _options: unknown, command: Command) =>
        perform(command, async (rt) => {
          const tenant = await requireTenant(rt.db(), ref);
          const change = await rt.inTenant(tenant.id, ({ context }) => setSuspended(rt.db(), context, suspended));
          const state = suspended ? 'suspended' : 'active';
          return {
            json: { tenant: tenantJson(change.tenant), changed: change.changed },
            text: change.changed ? `${change.tenant.slug} is ${state} now` : `${change.tenant.slug} already was ${state}: nothing changed`,
          };
        }),
      );
  }
}
