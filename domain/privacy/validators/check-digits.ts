/**
 * Check digits the project computes itself, apart from the scanning (detectors/): payment cards'
 * Luhn. National identifiers are checked in national-id.ts (stdnum), phone numbers in phone.ts
 * (libphonenumber). Pure, linear in the value.
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
