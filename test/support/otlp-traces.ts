/**
 * Reads an OTLP ExportTraceServiceRequest sent as protobuf (the SDK's http/protobuf exporter), for
 * a collector stand-in in the tests. The SDK ships an encoder only, so the messages are declared
 * here with protobufjs: the fields the tests read, numbered as in opentelemetry-proto's
 * trace/v1/trace.proto, common/v1/common.proto and resource/v1/resource.proto (unknown fields are
 * skipped by the decoder). The answer has the shape of the http/json body.
 */
import protobuf from 'protobufjs';

const OTLP_TRACES = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    bytes bytes_value = 7;
  }
}
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  repeated KeyValue attributes = 9;
}
message ScopeSpans { repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const request = protobuf.parse(OTLP_TRACES).root.lookupType('otlp.ExportTraceServiceRequest');

/** The request as plain objects: camelCase fields, ids as bytes, int64 values as numbers. */
export function decodeTraceRequest(body: Uint8Array): unknown {
  return request.toObject(request.decode(body), { longs: Number, defaults: false });
}
