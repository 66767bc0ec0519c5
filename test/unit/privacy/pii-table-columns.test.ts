// A value in a delimited table's cell is governed by its column's header (a phone column, an
// identifier's, a counter's), not by the cells before it on its row.
import { columnHeaderOf } from '../../../domain/privacy/detectors/table-columns';
import { detects } from '../../support/pii-cases';

describe('identifiers under their column header', () => {
  detects(
    'id_number',
    [
      ['a compact SSN under "ssn"', 'emp,name,ssn,site\n7,K. Lee,536221234,Leeds\n', '536221234'],
      ['a BSN in dashes under "bsn"', 'naam;bsn;plaats\nJ. de Vries;111-222-333;Delft\n', '111-222-333'],
      ['a CPF under a generic "id" header', 'name;country;id\nR. Alves;BR;529.982.247-25\n', '529.982.247-25'],
    ],
    [
      ['a BSN failing the eleven-test under "bsn"', 'naam,bsn\nJansen,111222334\n'],
      ['a NIF-valid number under a counter header', 'maquina;contador;turno\nP-3;123456789;noche\n'],
    ],
    'type',
  );
});

describe('phones under their column header', () => {
  detects(
    'phone',
    [['a compact mobile under "Teléfono", an identifier column before it', 'Nombre;DNI;Teléfono\nLuis;-;622418903\n', '622418903']],
    [['a phone-shaped number under a counter header', 'maquina;contador;turno\nP-3;622418903;noche\n']],
    'type',
  );
});

describe('columnHeaderOf', () => {
  const table = 'a;tel;c\nx;0612345678;z\n';
  const at = table.indexOf('0612');

  it('reads the header cell of the value’s column', () => {
    expect(columnHeaderOf(table, at, at + 10)).toBe('tel');
  });

  it('reads nothing for a value that is not a whole cell, or under a line of other cells', () => {
    expect(columnHeaderOf(table, at + 1, at + 10)).toBeNull();
    expect(columnHeaderOf('a;tel\nx;0612345678;z\n', 8, 18)).toBeNull();
  });

  it('reads no header farther up than its reach', () => {
    const rows = 'x;1;z\n'.repeat(300);
    const text = `a;tel;c\n${rows}x;0612345678;z\n`;
    const start = text.indexOf('0612');
    expect(columnHeaderOf(text, start, start + 10)).toBeNull();
  });
});
