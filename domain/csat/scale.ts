/**
 * CSAT survey scales (SPEC.md leaves them to us; docs/decisions/csat-surveys-and-scores.md): `csat_5` asks for 1..5,
 * `nps_10` for 0..10. Pure: imported by the API, the queries and the reply parser.
 */
export const CSAT_SCALES = ['csat_5', 'nps_10'] as const;
export type CsatScale = (typeof CSAT_SCALES)[number];

export const CSAT_CHANNELS = ['whatsapp', 'email'] as const;
export type CsatChannel = (typeof CSAT_CHANNELS)[number];

export const SCALE_RANGE: Readonly<Record<CsatScale, { min: number; max: number }>> = {
  csat_5: { min: 1, max: 5 },
  nps_10: { min: 0, max: 10 },
};

export function isScoreOnScale(score: number, scale: CsatScale): boolean {
  const { min, max } = SCALE_RANGE[scale];
  return Number.isInteger(score) && score >= min && score <= max;
}

/** The message sent to the contact when a conversation closes. */
export function invitationText(question: string, scale: CsatScale): string {
  const { min, max } = SCALE_RANGE[scale];
  return `${question.trim()}\nPlease reply with a number from ${min} to ${max} (you may add a comment after it).`;
}
