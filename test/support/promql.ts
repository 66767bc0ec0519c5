/**
 * PromQL read with the Prometheus project's own grammar (@prometheus-io/lezer-promql, the parser of
 * Prometheus's web UI): the metric names an expression selects, and its syntax errors.
 */
import { parser } from '@prometheus-io/lezer-promql';

export interface ParsedPromql {
  /** Names of the vector selectors (`name{...}` or `{__name__="name"}`), in order. */
  metricNames: string[];
  /** Where the grammar could not read the expression (empty: it parses). */
  errors: string[];
}

export function parsePromql(expr: string): ParsedPromql {
  const metricNames: string[] = [];
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      const text = expr.slice(node.from, node.to);
      if (node.type.isError) errors.push(`cannot read "${expr.slice(node.from, node.from + 30)}" at ${node.from}`);
      if (node.name === 'VectorSelector') {
        const name = /^[a-zA-Z_:][\w:]*/.exec(text)?.[0] ?? /__name__\s*=\s*"([^"]+)"/.exec(text)?.[1];
        if (name) metricNames.push(name);
        else errors.push(`a selector without a metric name: ${text}`);
      }
    },
  });
  return { metricNames, errors };
}
