/**
 * Hostile archives, written entry by entry (deterministic, no fixture files): a ZIP whose one
 * entry inflates to 1 GiB, an XLSX whose sheet does, and an XLSX whose shared strings expand XML
 * entities a billion times ("billion laughs"). The service stores such files as uploaded and never
 * opens them; the tests prove that it does not.
 */
import zlib from 'node:zlib';
import { crc32OfZeros, deflatedZeros } from './images';

interface ZipEntry {
  name: string;
  /** The stored (deflated) bytes. */
  data: Buffer;
  /** What they inflate to. */
  size: number;
  crc: number;
}

const deflated = (name: string, text: string): ZipEntry => {
  const raw = Buffer.from(text);
  return { name, data: zlib.deflateRawSync(raw), size: raw.length, crc: zlib.crc32(raw) };
};

/** The fields a local header (at 8) and a central header (at 10) share: method, time, date, CRC, sizes, name length. */
function writeEntryFields(header: Buffer, at: number, entry: ZipEntry, nameLength: number): void {
  header.writeUInt16LE(8, at);
  header.writeUInt32LE(entry.crc >>> 0, at + 6);
  header.writeUInt32LE(entry.data.length, at + 10);
  header.writeUInt32LE(Math.min(entry.size, 0xffffffff), at + 14);
  header.writeUInt16LE(nameLength, at + 18);
}

/** A ZIP of deflated entries (method 8), with its central directory. */
export function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    writeEntryFields(local, 8, entry, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    writeEntryFields(central, 10, entry, name.length);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const GIB = 1024 * 1024 * 1024;

/** One entry of zeros that inflates to `inflated` bytes (1 GiB: about 1 MiB stored). */
export function zipBomb(inflated = GIB): Buffer {
  return zipOf([{ name: 'zeros.bin', data: deflatedZeros(inflated, 'raw'), size: inflated, crc: crc32OfZeros(inflated) }]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/** An XLSX package: [Content_Types].xml first (what the upload's sniffer looks for), then the parts. */
function xlsxOf(parts: readonly ZipEntry[]): Buffer {
  return zipOf([deflated('[Content_Types].xml', CONTENT_TYPES), deflated('_rels/.rels', RELS), deflated('xl/workbook.xml', WORKBOOK), ...parts]);
}

/** An XLSX whose sheet part inflates to `inflated` bytes of zeros. */
export function xlsxBomb(inflated = GIB): Buffer {
  return xlsxOf([{ name: 'xl/worksheets/sheet1.xml', data: deflatedZeros(inflated, 'raw'), size: inflated, crc: crc32OfZeros(inflated) }]);
}

/** An XLSX whose shared strings define ten entities of ten references each, nine deep: 10^9 "lol" once expanded. */
export function xlsxEntityExpansion(): Buffer {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i += 1) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  const strings = `<?xml version="1.0"?><!DOCTYPE sst [${entities.join('')}]><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>`;
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`;
  return xlsxOf([deflated('xl/worksheets/sheet1.xml', sheet), deflated('xl/sharedStrings.xml', strings)]);
}

export const HOSTILE_ARCHIVES: Readonly<Record<string, { contentType: string; fileName: string; bytes: () => Buffer }>> = {
  'zip-bomb': { contentType: 'application/zip', fileName: 'bomb.zip', bytes: () => zipBomb() },
  'xlsx-bomb': { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', fileName: 'bomb.xlsx', bytes: () => xlsxBomb() },
  'xlsx-entity-expansion': { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', fileName: 'laughs.xlsx', bytes: xlsxEntityExpansion },
};
