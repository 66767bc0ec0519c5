/**
 * A workbook read back as a spreadsheet application reads it, independently of the library that
 * wrote it: the ZIP opened with jszip (zip.ts), its parts parsed with fast-xml-parser, sheets found
 * through the workbook's relationships, strings from the shared table or inline, numbers in a date
 * format read as dates (tests only).
 */
import { XMLParser } from 'fast-xml-parser';
import path from 'node:path/posix';
import { readZip } from './zip';

export type XlsxValue = string | number | boolean | Date | undefined;

export interface XlsxCell {
  readonly value: XlsxValue;
  /** The number format's code, when the cell has one. */
  readonly numFmt: string | undefined;
  /** The solid fill's colour as ARGB (`FF112233`), when the cell has one. */
  readonly fill: string | undefined;
  readonly bold: boolean;
}

export interface XlsxSheet {
  readonly name: string;
  /** Rows that hold a value, each as wide as the widest of the sheet; an empty cell is undefined. */
  readonly rows: XlsxValue[][];
  cell(address: string): XlsxCell | undefined;
  /** Rows frozen at the top (0 when none). */
  readonly frozenRows: number;
  /** The range of the filter, e.g. `A1:G1`, or null. */
  readonly autoFilter: string | null;
  /** The bytes of each picture drawn on the sheet. */
  readonly images: Buffer[];
}

export interface XlsxWorkbook {
  readonly sheetNames: string[];
  sheet(name: string): XlsxSheet;
}

type Node = Record<string, any>;

const ELEMENTS_THAT_REPEAT = new Set(['sheet', 'Relationship', 'row', 'c', 'si', 'r', 'xf', 'numFmt', 'fill', 'font', 'oneCellAnchor', 'twoCellAnchor']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => ELEMENTS_THAT_REPEAT.has(name),
});
/** Built-in number formats that are dates or times (ECMA-376 part 1, 18.8.30). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);
const EXCEL_EPOCH_DAYS = 25569; // 1970-01-01 as a serial number of the 1900 date system

const text = (node: unknown): string => (typeof node === 'string' ? node : typeof node === 'object' && node !== null ? String((node as Node)['#text'] ?? '') : '');
/** A string item: plain `<t>` or rich text runs. */
const stringItem = (si: Node): string => (si.t !== undefined ? text(si.t) : ((si.r as Node[] | undefined) ?? []).map((run) => text(run.t)).join(''));
/** Whether a format code shows a date or time: d, m, y, h or s outside quotes, brackets (colours, locales) and escapes. */
function isDateFormat(code: string): boolean {
  let closing: string | null = null;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (closing !== null) {
      if (ch === closing) closing = null;
    } else if (ch === '"') closing = '"';
    else if (ch === '[') closing = ']';
    else if (ch === '\\') i++;
    else if ('dmyhsDMYHS'.includes(ch)) return true;
  }
  return false;
}
const columnNumber = (address: string): number => [.../^[A-Z]*/.exec(address)![0]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);

export async function readXlsx(bytes: Buffer): Promise<XlsxWorkbook> {
  const files = await readZip(bytes);
  const xml = (name: string): Node => {
    const file = files.get(name);
    if (!file) throw new Error(`the workbook has no ${name}`);
    return parser.parse(file.toString('utf8')) as Node;
  };
  const relationships = (of: string): Map<string, string> => {
    const rels = path.join(path.dirname(of), '_rels', `${path.basename(of)}.rels`);
    if (!files.has(rels)) return new Map();
    const list = (xml(rels).Relationships?.Relationship as Node[] | undefined) ?? [];
    return new Map(list.map((r) => [String(r.Id), path.normalize(path.join(path.dirname(of), String(r.Target)))]));
  };

  const workbookRels = relationships('xl/workbook.xml');
  const sheets = ((xml('xl/workbook.xml').workbook.sheets.sheet as Node[]) ?? []).map((s) => ({ name: String(s.name), file: workbookRels.get(String(s.id))! }));
  const shared = files.has('xl/sharedStrings.xml') ? ((xml('xl/sharedStrings.xml').sst.si as Node[] | undefined) ?? []).map(stringItem) : [];
  const styles = files.has('xl/styles.xml') ? xml('xl/styles.xml').styleSheet : {};
  const formats = new Map<number, string>(((styles.numFmts?.numFmt as Node[] | undefined) ?? []).map((f) => [Number(f.numFmtId), String(f.formatCode)]));
  const xfs = (styles.cellXfs?.xf as Node[] | undefined) ?? [];
  const fills = (styles.fills?.fill as Node[] | undefined) ?? [];
  const fonts = (styles.fonts?.font as Node[] | undefined) ?? [];

  function readCell(c: Node): XlsxCell {
    const xf = c.s !== undefined ? xfs[Number(c.s)] : undefined;
    const formatId = xf?.numFmtId !== undefined ? Number(xf.numFmtId) : 0;
    const numFmt = formats.get(formatId);
    const isDate = BUILT_IN_DATE_FORMATS.has(formatId) || (numFmt !== undefined && isDateFormat(numFmt));
    const pattern = xf?.fillId !== undefined ? fills[Number(xf.fillId)]?.patternFill : undefined;
    const fill = pattern?.patternType === 'solid' ? (pattern.fgColor?.rgb as string | undefined) : undefined;
    const bold = xf?.fontId !== undefined && fonts[Number(xf.fontId)]?.b !== undefined;
    const raw = c.v !== undefined ? text(c.v) : undefined;
    let value: XlsxValue;
    if (c.t === 'inlineStr') value = stringItem(c.is as Node);
    else if (raw === undefined) value = undefined;
    else if (c.t === 's') value = shared[Number(raw)];
    else if (c.t === 'str' || c.t === 'e') value = raw;
    else if (c.t === 'b') value = raw === '1';
    else if (isDate) value = new Date(Math.round((Number(raw) - EXCEL_EPOCH_DAYS) * 86_400_000));
    else value = Number(raw);
    return { value, numFmt, fill, bold };
  }

  function readSheet(name: string): XlsxSheet {
    const entry = sheets.find((s) => s.name === name);
    if (!entry) throw new Error(`the workbook has no sheet ${name} (it has ${sheets.map((s) => s.name).join(', ')})`);
    const worksheet = xml(entry.file).worksheet as Node;
    const cells = new Map<string, XlsxCell>();
    const rows: Array<Map<number, XlsxValue>> = [];
    for (const row of (worksheet.sheetData?.row as Node[] | undefined) ?? []) {
      const values = new Map<number, XlsxValue>();
      for (const c of (row.c as Node[] | undefined) ?? []) {
        const cell = readCell(c);
        cells.set(String(c.r), cell);
        if (cell.value !== undefined) values.set(columnNumber(String(c.r)), cell.value);
      }
      if (values.size > 0) rows.push(values);
    }
    const width = Math.max(0, ...rows.flatMap((row) => [...row.keys()]));
    const pane = worksheet.sheetViews?.sheetView?.pane as Node | undefined;
    const sheetRels = relationships(entry.file);
    const drawingFile = worksheet.drawing ? sheetRels.get(String(worksheet.drawing.id)) : undefined;
    const images: Buffer[] = [];
    if (drawingFile) {
      const drawingRels = relationships(drawingFile);
      const drawing = xml(drawingFile).wsDr as Node;
      for (const anchor of [...((drawing.oneCellAnchor as Node[] | undefined) ?? []), ...((drawing.twoCellAnchor as Node[] | undefined) ?? [])]) {
        const media = drawingRels.get(String(anchor.pic?.blipFill?.blip?.embed));
        if (media && files.has(media)) images.push(files.get(media)!);
      }
    }
    return {
      name,
      rows: rows.map((row) => Array.from({ length: width }, (_, i) => row.get(i + 1))),
      cell: (address) => cells.get(address),
      frozenRows: pane?.state === 'frozen' ? Number(pane.ySplit ?? 0) : 0,
      autoFilter: worksheet.autoFilter ? String(worksheet.autoFilter.ref) : null,
      images,
    };
  }

  return { sheetNames: sheets.map((s) => s.name), sheet: readSheet };
}
