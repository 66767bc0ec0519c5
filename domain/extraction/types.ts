/**
 * Extraction templates and results (issue 8). A template is a list of named, typed fields; an
 * extraction produces, per field, a value with its confidence and the span of the text it came from.
 * Pure types, shared by the API, the activities and the engines.
 */
export const FIELD_TYPES = ['string', 'number', 'date', 'enum', 'boolean', 'array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const ARRAY_ITEM_TYPES = ['string', 'number', 'date'] as const;
export type ArrayItemType = (typeof ARRAY_ITEM_TYPES)[number];

interface FieldBase {
  /** snake_case, unique within the template. */
  name: string;
  required?: boolean;
  /** Free text for a model; quoted phrases in it ("Invoice No.") are also labels for the built-in engine. */
  instructions?: string;
}

export type TemplateField =
  (FieldBase & { type: 'string' | 'number' | 'date' | 'boolean' }) | (FieldBase & { type: 'enum'; values: string[] }) | (FieldBase & { type: 'array'; items: ArrayItemType });

/** A field's value: dates are ISO `yyyy-mm-dd` strings. */
export type FieldValue = string | number | boolean | Array<string | number> | null;

/** Offsets into the whole document text, half-open [start, end), and the text between them. */
export interface SourceSpan {
  start: number;
  end: number;
  text: string;
}

export type ExtractionEngine = 'built-in' | 'openai-compatible';

export interface FieldResult {
  value: FieldValue;
  /** 0..1: how the value was found (a label next to it counts more than its type alone). */
  confidence: number;
  source: SourceSpan | null;
  /** Who gave the value: an engine, or a person's correction (confidence 1, source kept). */
  engine: ExtractionEngine | 'person';
}

export type ExtractedFields = Record<string, FieldResult>;

/** What one chunk of the document gave: per field, the best candidate found in it (or none). */
export interface ChunkResult {
  engine: ExtractionEngine;
  model: string;
  /** Set when the configured model failed on this chunk and the built-in engine answered instead. */
  fellBack?: boolean;
  fields: ExtractedFields;
}

export const emptyField = (engine: ExtractionEngine): FieldResult => ({ value: null, confidence: 0, source: null, engine });
