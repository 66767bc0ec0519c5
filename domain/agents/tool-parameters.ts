/**
 * The JSON-schema subset a tool's `parameters` may use: the shape language-model function
 * calling expects (an object schema with typed properties). Anything outside the subset is
 * refused with the path of the offending part, so a stored schema is always one a model and
 * the tool runner understand.
 */
export const BUILT_IN_TOOLS = ['get_asset_health', 'create_maintenance_task'] as const;
export type BuiltInTool = (typeof BUILT_IN_TOOLS)[number];

const PROPERTY_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const PROPERTY_KEYS = new Set(['type', 'description', 'enum', 'items', 'properties', 'required', 'minimum', 'maximum', 'format']);
const MAX_DEPTH = 5;

export interface SchemaIssue {
  path: string;
  message: string;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Issues of a tool parameters schema; empty when it is valid. */
export function validateToolParameters(schema: unknown): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  if (!isPlainObject(schema) || schema.type !== 'object') {
    return [{ path: 'parameters', message: 'must be a JSON schema with "type": "object"' }];
  }
  checkObjectSchema(schema, 'parameters', 0, issues);
  return issues;
}

function checkObjectSchema(schema: Record<string, unknown>, path: string, depth: number, issues: SchemaIssue[]): void {
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) {
    issues.push({ path: `${path}.properties`, message: 'must be an object' });
    return;
  }
  for (const [name, property] of Object.entries(properties)) checkProperty(property, `${path}.properties.${name}`, depth + 1, issues);
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === 'string')) {
      issues.push({ path: `${path}.required`, message: 'must be an array of property names' });
    } else {
      for (const r of schema.required) {
        if (!(r in properties)) issues.push({ path: `${path}.required`, message: `"${r}" is not a declared property` });
      }
    }
  }
}

function checkProperty(property: unknown, path: string, depth: number, issues: SchemaIssue[]): void {
  if (depth > MAX_DEPTH) {
    issues.push({ path, message: `nests deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (!isPlainObject(property)) {
    issues.push({ path, message: 'must be a schema object' });
    return;
  }
  for (const key of Object.keys(property)) {
    if (!PROPERTY_KEYS.has(key)) issues.push({ path: `${path}.${key}`, message: 'is not a supported schema keyword' });
  }
  if (typeof property.type !== 'string' || !PROPERTY_TYPES.has(property.type)) {
    issues.push({ path: `${path}.type`, message: `must be one of ${[...PROPERTY_TYPES].join(', ')}` });
    return;
  }
  if (property.description !== undefined && typeof property.description !== 'string') {
    issues.push({ path: `${path}.description`, message: 'must be a string' });
  }
  if (property.enum !== undefined && (!Array.isArray(property.enum) || property.enum.length === 0)) {
    issues.push({ path: `${path}.enum`, message: 'must be a non-empty array' });
  }
  if (property.type === 'array') {
    if (property.items === undefined) issues.push({ path: `${path}.items`, message: 'is required for an array' });
    else checkProperty(property.items, `${path}.items`, depth + 1, issues);
  }
  if (property.type === 'object') checkObjectSchema(property, path, depth, issues);
}
