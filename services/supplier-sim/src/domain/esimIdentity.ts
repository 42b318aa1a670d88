import { randomInt } from 'node:crypto';

/** The identity of one eSIM profile as the supplier hands it out. */
export interface EsimProfile {
  iccid: string;
  smdpAddress: string;
  matchingId: string;
  /** GSMA SGP.22 LPA activation code: what the QR code on the customer's order encodes. */
  activationCode: string;
}

/** The Luhn (mod 10) check digit of a string of decimal digits. */
export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  // The check digit will sit to the right, so the payload's rightmost digit is the first one doubled.
  for (let i = 0; i < payload.length; i++) {
    let digit = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the last digit of `digits` is the Luhn check digit of the others. */
export function hasValidLuhn(digits: string): boolean {
  return /^\d{2,}$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));
}

const randomDigits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');

/** 20 digits: the telecom industry prefix 89, 17 random digits, then the Luhn check digit (ITU-T E.118). */
export function newIccid(): string {
  const payload = `89${randomDigits(17)}`;
  return `${payload}${luhnCheckDigit(payload)}`;
}

const matchingIdAlphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const matchingIdGroups = [2, 5, 5];

/** Upper-case alphanumeric groups such as `K2-3F9A1-7QX2P` (about 62 bits of randomness). */
export function newMatchingId(): string {
  return matchingIdGroups
    .map((length) => Array.from({ length }, () => matchingIdAlphabet[randomInt(matchingIdAlphabet.length)]).join(''))
    .join('-');
}

/** `LPA:1$<SM-DP+ address>$<matching id>`, the activation code format of GSMA SGP.22. */
export function activationCodeOf(smdpAddress: string, matchingId: string): string {
  return `LPA:1$${smdpAddress}$${matchingId}`;
}

export function newEsimProfile(smdpAddress: string): EsimProfile {
  const matchingId = newMatchingId();
  return { iccid: newIccid(), smdpAddress, matchingId, activationCode: activationCodeOf(smdpAddress, matchingId) };
}
