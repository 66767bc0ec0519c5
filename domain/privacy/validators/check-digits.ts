/**
 * Check digits of the values the detectors find, apart from the scanning (detectors/): each takes
 * the value's characters and says whether its checksum holds. Pure, linear in the value.
 */

/** Luhn mod-10 checksum over a string of digits (payment cards). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spanish DNI/NIE mod-23 check letter over the number's digits. */
export function dniLetterMatches(digits: string, letter: string): boolean {
  return DNI_LETTERS[Number(digits) % 23] === letter.toUpperCase();
}

/** The two mod-11 check digits of a Brazilian CPF over its first nine digits (11 digits in all). */
export function cpfCheckDigitsMatch(digits: string): boolean {
  if (digits.length !== 11 || /^(\d)\1{10}$/.test(digits)) return false; // 111.111.111-11 passes the sums but is never issued
  const check = (length: number) => {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += Number(digits[i]) * (length + 1 - i);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  return check(9) === Number(digits[9]) && check(10) === Number(digits[10]);
}
