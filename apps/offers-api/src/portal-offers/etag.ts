/**
 * The portal's offer document changes only when the offer's version does (every answer, completion
 * and withdrawal bumps it) or when its last slot ends (`isHistoric` and `status` turn by time alone),
 * so those two make its entity tag. Strong: equal tags are byte-for-byte the same document.
 */
export function portalOfferEtag(version: number, historic: boolean): string {
  return `"p${version}.${historic ? 1 : 0}"`;
}

/**
 * Whether an If-None-Match header names the current tag (RFC 9110 13.1.2: weak comparison, a list of
 * tags, or `*` for any current representation). Anything malformed simply does not match.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const wanted = stripWeak(etag);
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || stripWeak(tag) === wanted;
  });
}

function stripWeak(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
