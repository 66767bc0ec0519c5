import { jsonShapeExcess, JsonShapeScan } from '../../../domain/json-depth';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The scan of `input` fed in two pieces cut at `at`. */
const scanSplit = (input: Buffer, at: number, depth = 3, members = 3): JsonShapeScan => new JsonShapeScan(depth, members).feed(input.subarray(0, at)).feed(input.subarray(at));

describe('JsonShapeScan', () => {
  // Each text with its verdict under 3 levels and 3 members, as the unit tests of jsonShapeExcess read it.
  const texts: Array<[string, string | null]> = [
    ['[[[]]]', null],
    ['[[[[]]]]', 'depth'],
    ['{"a":"\\"[[[[\\\\"}', null],
    ['["\\\\",[[[]]]]', 'depth'],
    ['["é\\é[[[[",[[]]]', null],
    ['{"a":1,"b":2,"c":3}', null],
    ['{"a":1,"b":2,"c":3,"d":4}', 'members'],
    ['["[,,,,", 1]', null],
    ['\uFEFF [[[[]]]]', 'depth'],
  ];

  it('gives the verdict of the whole text wherever the bytes are cut, escapes and multi-byte characters included', () => {
    for (const [text, verdict] of texts) {
      const input = bytes(text);
      expect([text, jsonShapeExcess(text, 3, 3)]).toEqual([text, verdict]);
      for (let at = 0; at <= input.length; at++) expect([text, at, scanSplit(input, at).excess]).toEqual([text, at, verdict]);
    }
  });

  it('says whether the text opens with an array or an object, as a UTF-8 decoder and the strict JSON check would', () => {
    const opens = (input: Buffer): boolean | undefined => {
      const verdicts = Array.from({ length: input.length + 1 }, (_, at) => scanSplit(input, at).opensContainer);
      expect(new Set(verdicts).size).toBe(1);
      return verdicts[0];
    };
    expect(opens(bytes(' \t\r\n[1]'))).toBe(true);
    expect(opens(bytes('{}'))).toBe(true);
    expect(opens(Buffer.from([0xef, 0xbb, 0xbf, 0x20, 0x5b]))).toBe(true); // a byte order mark, then " ["
    expect(opens(Buffer.from([0xef, 0xbb, 0x5b]))).toBe(false); // a broken mark decodes to U+FFFD
    expect(opens(Buffer.from([0x20, 0xef, 0xbb, 0xbf, 0x5b]))).toBe(false); // U+FEFF after a space is a character
    expect(opens(Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x5b]))).toBe(false);
    expect(opens(bytes(`x${'['.repeat(100)}`))).toBe(false);
    expect(opens(bytes('"[[[["'))).toBe(false);
    expect(opens(bytes('  '))).toBe(undefined);
  });

  it('stops counting at the first bound exceeded', () => {
    const scan = new JsonShapeScan(2, 100).feed(bytes('[[[')).feed(bytes(',,,,]]]'));
    expect(scan.excess).toBe('depth');
  });
});
