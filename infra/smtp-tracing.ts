/**
 * A client span around each message a nodemailer transport sends ("smtp send"): nodemailer has
 * no maintained OpenTelemetry instrumentation. The span names the server, never a recipient or
 * subject (personal data). A no-op tracer (tracing off) makes it free.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Transporter } from 'nodemailer';

const tracer = trace.getTracer('industrial-ops-smtp');

export function withSendSpans<T extends Transporter>(transporter: T): T {
  const send = transporter.sendMail.bind(transporter) as (mail: object) => Promise<unknown>;
  // The SMTP transport's parsed options (from a URL or an object alike).
  const options = (transporter.transporter as unknown as { options?: { host?: string; port?: number } }).options ?? {};
  const attributes = { 'server.address': options.host ?? '', ...(options.port ? { 'server.port': options.port } : {}) };
  const traced = (mail: object) =>
    tracer.startActiveSpan('smtp send', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await send(mail);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? 'send failed' });
        throw err;
      } finally {
        span.end();
      }
    });
  transporter.sendMail = traced as T['sendMail'];
  return transporter;
}
