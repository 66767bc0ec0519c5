/**
 * Every response an API test receives is checked against the OpenAPI document (issue 17: "the
 * document is exact"): its status must be documented for the operation, and a JSON body must match
 * the documented schema of that status (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). The
 * document is built in-process from the same route declarations the API serves it from.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../api/openapi';
import type { RegisteredRoute } from '../../api/route';

type JsonSchema = Record<string, any>;

interface Operation {
  readonly pattern: RegExp;
  readonly method: string;
  readonly responses: Record<string, JsonSchema>;
}

export interface ContractCheck {
  /** Null when the response agrees with the document, else what differs. */
  violation(method: string, path: string, status: number, contentType: string, body: unknown): string | null;
}

export function createContractCheck(routes: RegisteredRoute[]): ContractCheck {
  const document = buildOpenApi(routes, { version: 'test' });
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  const validators = new Map<JsonSchema, ValidateFunction>();
  const validatorOf = (schema: JsonSchema) => {
    let validate = validators.get(schema);
    if (!validate) {
      // Component references resolve inside the document.
      validate = ajv.compile({ ...rebase(schema) });
      validators.set(schema, validate);
    }
    return validate;
  };
  const operations: Operation[] = Object.entries<Record<string, JsonSchema>>(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^{}]+\\\}|\{[^{}]+\}/g, '[^/]+')}/?$`),
      method: method.toUpperCase(),
      responses: operation.responses,
    })),
  );
  // Static paths before templated ones (`/assets/tree` before `/assets/{asset_id}`).
  operations.sort((a, b) => (a.pattern.source.includes('[^/]+') ? 1 : 0) - (b.pattern.source.includes('[^/]+') ? 1 : 0));

  return {
    violation(method, path, status, contentType, body) {
      const operation = operations.find((o) => o.method === method && o.pattern.test(path));
      if (!operation) return null; // a method or path the document does not have: 404/405 are the router's
      const response = operation.responses[String(status)];
      if (!response) return `status ${status} is not documented for ${method} ${path}`;
      const schema = response.content?.['application/json']?.schema;
      if (!schema || !contentType.includes('json') || body === undefined) return null;
      const validate = validatorOf(schema);
      if (validate(body)) return null;
      return `${method} ${path} ${status}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
    },
  };
}

/** `#/components/...` → `openapi#/components/...` so references resolve against the document. */
function rebase(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : rebase(value)]),
    );
  }
  return schema;
}
