import { CsatScale, isScoreOnScale } from './scale';

export interface ScoreReply {
  score: number;
  comment: string | null;
}

// A reply that starts with a whole number, optionally "out of" the scale ("4/5"), then optionally a
// separator and a comment: "4", "4 - quick fix, thanks", "9/10 great". "4.5" or "45 pumps" are not.
// The comment is what follows the match (taken by offset, not by a trailing `[\s\S]*` that the
// separators' spaces could trade characters with).
const REPLY_RE = /^\s*(\d{1,2})(?![\d.,]\d)(?:\s*\/\s*(?:5|10))?(?:\s*[-–—:,.!)]+|\s|$)/;

/**
 * The score a contact's reply gives on the survey's scale, with the rest as a comment; null when
 * the reply is not a score on that scale (then it is an ordinary message for the agent).
 */
export function parseScoreReply(body: string, scale: CsatScale): ScoreReply | null {
  const match = REPLY_RE.exec(body);
  if (!match) return null;
  const score = Number(match[1]);
  if (!isScoreOnScale(score, scale)) return null;
  const comment = body.slice(match[0].length).trim();
  return { score, comment: comment === '' ? null : comment.slice(0, 2000) };
}
