/**
 * The "smtp send" client span around each message (nodemailer has no maintained instrumentation),
 * against a real SMTP server on loopback: the server's address on the span, never a recipient or
 * subject; a refusal marks it failed with the SMTP code only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import nodemailer from 'nodemailer';
import { withSendSpans } from '../../../infra/smtp-tracing';
import { REFUSED_DOMAIN, SmtpSink, startSmtpSink } from '../../support/smtp-sink';

const spans = new InMemorySpanExporter();
let dir: string;
let sink: SmtpSink;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smtp-tracing-'));
  sink = await startSmtpSink(dir);
});
afterAll(async () => {
  await sink?.close();
  trace.disable();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('wraps each send in a client span naming the server, not the message', async () => {
  const mailer = withSendSpans(nodemailer.createTransport(sink.url));
  const port = Number(new URL(sink.url).port);
  await mailer.sendMail({ from: 'ops@example.com', to: 'someone@example.com', subject: 'Work order 7', text: 'hello' });
  await expect(mailer.sendMail({ from: 'ops@example.com', to: `nobody@${REFUSED_DOMAIN}`, subject: 'x', text: 'x' })).rejects.toThrow();
  mailer.close();

  const [sent, refused] = spans.getFinishedSpans();
  expect(sent).toMatchObject({ name: 'smtp send', kind: SpanKind.CLIENT, attributes: { 'server.address': '127.0.0.1', 'server.port': port } });
  expect(sent!.status.code).toBe(SpanStatusCode.UNSET);
  expect(refused!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'EENVELOPE' });
  expect(JSON.stringify([sent!.attributes, refused!.attributes])).not.toMatch(/someone|nobody|Work order/);
});
