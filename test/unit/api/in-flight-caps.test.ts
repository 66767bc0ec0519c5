import { InFlightCaps } from '../../../api/in-flight-caps';

type Slot = ReturnType<InFlightCaps['enter']>;
const release = (slot: Slot) => {
  if (!('release' in slot)) throw new Error(`refused: ${slot.refused}`);
  return slot.release;
};

describe('InFlightCaps', () => {
  it('refuses a key at its cap and everything at the overall cap, and frees both on release', () => {
    const caps = new InFlightCaps(2, 3);
    const a1 = release(caps.enter('a'));
    release(caps.enter('a'));
    expect(caps.enter('a')).toEqual({ refused: 'key' });
    const b1 = release(caps.enter('b'));
    expect(caps.enter('c')).toEqual({ refused: 'overall' });
    expect(caps.enter(null)).toEqual({ refused: 'overall' });
    b1();
    release(caps.enter(null));
    a1();
    a1(); // a second release of one slot changes nothing
    release(caps.enter('a'));
    expect(caps.enter('a')).toEqual({ refused: 'key' });
  });

  it('lets requests without a key count only against the overall cap', () => {
    const caps = new InFlightCaps(1, 2);
    release(caps.enter(null));
    release(caps.enter(null));
    expect(caps.enter(null)).toEqual({ refused: 'overall' });
  });
});
