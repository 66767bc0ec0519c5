/**
 * An extraction job inserted as POST /extractions stores it (queued, its template's fields
 * copied), for tests that run the extraction activities themselves instead of its workflow.
 */
import type { Db } from '../../db/knex';

export async function insertQueuedExtraction(
  db: Db,
  owner: { tenantId: string; adminUserId: string },
  template: { id: string; fields: unknown },
  source: { text: string } | { fileId: string },
): Promise<string> {
  const [job] = await db('extractions')
    .insert({
      tenant_id: owner.tenantId,
      template_id: template.id,
      template_fields: JSON.stringify(template.fields),
      ...('text' in source ? { source_kind: 'text', input_text: source.text } : { source_kind: 'file', file_id: source.fileId }),
      created_by: owner.adminUserId,
    })
    .returning('id');
  return job.id as string;
}
