import { LinkifyIt } from 'linkify-it';

/**
 * The links a mail client could make of plain text, found by linkify-it (markdown-it's link finder)
 * with every fuzzy rule on (`example.com`, `me@example.com`, `10.0.0.1`) and every word of the text
 * taken as a top-level domain: mail clients know far more domains than linkify-it's own list.
 */
export function linksIn(text: string): string[] {
  const words = [...new Set(text.normalize('NFKC').match(/\p{L}+/gu) ?? [])];
  const linkify = new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true });
  if (words.length > 0) linkify.tlds(words, true);
  return (linkify.match(text) ?? []).map((match) => match.raw);
}
