/** `workflows link`: a resource's workflow in the Temporal Web UI, from its business id (services/workflow-links.ts). */
import { Argument, Command } from 'commander';
import { requireTenant } from '../../services/tenants';
import { LINKED_WORKFLOWS, tenantOfRecord, workflowLink, type LinkedKind } from '../../services/workflow-links';
import { fields } from '../output';
import type { Perform } from '../perform';

export function registerWorkflows(program: Command, perform: Perform): void {
  const workflows = program.command('workflows').description("resources' workflows in the Temporal Web UI");

  workflows
    .command('link')
    .description("the Temporal UI page of a maintenance plan's or a webhook delivery's workflow (its latest run when Temporal answers); the UI from TEMPORAL_UI_URL")
    .addArgument(new Argument('<kind>', 'what the id names').choices(Object.keys(LINKED_WORKFLOWS)))
    .argument('<id>', "the plan's id, or the delivery's id (the webhook-id header)")
    .option('--tenant <tenant>', "its tenant's id or slug (default: found from the id)")
    .action((kind: LinkedKind, id: string, options: { tenant?: string }, command: Command) =>
      perform(command, async (rt) => {
        const tenantId = options.tenant ? (await requireTenant(rt.db(), options.tenant)).id : await tenantOfRecord(rt.db(), kind, id);
        const { temporal } = rt.config();
        const link = await rt.inTenant(tenantId, ({ scope }) =>
          workflowLink({ temporal: rt.temporal(), ui: { uiUrl: temporal.uiUrl, namespace: temporal.namespace } }, scope, kind, id),
        );
        const text = fields([
          ['workflow', link.workflow_id],
          ['status', link.status ?? '(Temporal did not answer)'],
          ['run', link.run_id],
          ['link', link.url],
        ]);
        return { json: link, text };
      }),
    );
}
