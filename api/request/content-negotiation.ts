// Choosing a response representation from `Accept`, and checking a request body's `Content-Type`,
// the way kube-apiserver's negotiation package does it: clauses are tried by preference (q-value,
// then specificity, then header order); the first clause that names a media type we serialise,
// and whose `as`/`g`/`v` conversion (Table, aggregated discovery...) the endpoint can produce,
// wins. Unknown parameters are tolerated. No acceptable clause → 406 with the accepted types.
import type { Status } from '../../engine/resources/types.ts';
import { notAcceptable, unsupportedMediaType } from '../../engine/status/errors.ts';
import { setOwn } from '../../engine/own-property.ts';
import { PROTOBUF_MEDIA_TYPE, type SerializerMediaType } from '../../engine/render/serializer.ts';
import { PATCH_CONTENT_TYPES } from '../../engine/patch/index.ts';

// What the serializers write (engine/render/serializer.ts) is what negotiation chooses among.

/** The text serialisations, in preference order (the first is the default for an empty Accept); what documents such as discovery are served in. */
export const SUPPORTED_MEDIA_TYPES: readonly SerializerMediaType[] = ['application/json', 'application/yaml'];

/** What API objects (resources, their lists, watch events, Status) are served in, in kube-apiserver's order. */
export const OBJECT_MEDIA_TYPES: readonly SerializerMediaType[] = [...SUPPORTED_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE];

/** PATCH bodies, in the order kube-apiserver lists them in its 415 message (the patch package's four). */
export const PATCH_MEDIA_TYPES = PATCH_CONTENT_TYPES;

export interface MediaRange {
  type: string;
  subtype: string;
  /** Parameters other than `q`, keys lower-cased. */
  params: Record<string, string>;
  q: number;
}

/** A representation other than the resource's own: `as=<kind>;g=<group>;v=<version>`. */
export interface ConversionTarget {
  group: string;
  version: string;
  kind: string;
}

export interface EndpointRestrictions {
  /** Conversions the endpoint can produce; any other `as=` clause is skipped. */
  conversions: readonly ConversionTarget[];
  /** Whether plain representations (no `as=`) may be chosen; aggregated discovery says no. */
  allowsPlain?: boolean;
  /** Whether `stream=watch` may be asked for (list endpoints). */
  allowsWatchStream?: boolean;
  /** The serialisations on offer; SUPPORTED_MEDIA_TYPES when absent. */
  mediaTypes?: readonly SerializerMediaType[];
}

export interface NegotiatedMediaType {
  ok: true;
  mediaType: SerializerMediaType;
  /** Set when a conversion was asked for and is possible. */
  target?: ConversionTarget;
  /** `pretty=1` on the chosen clause. */
  pretty: boolean;
  /** The Content-Type to answer with. */
  contentType: string;
}

export type Negotiation = NegotiatedMediaType | { ok: false; status: Status };

/** Table and PartialObjectMetadata(List) conversions of meta/v1 in the given meta group. */
export function tableConversions(metaGroup: string): ConversionTarget[] {
  return [
    { group: metaGroup, version: 'v1', kind: 'Table' },
    { group: metaGroup, version: 'v1', kind: 'PartialObjectMetadata' },
    { group: metaGroup, version: 'v1', kind: 'PartialObjectMetadataList' },
  ];
}

/**
 * Parses an Accept header into media ranges, most preferred first. Clauses with q=0 are dropped
 * (RFC 9110: "not acceptable"); malformed clauses are skipped rather than failing the request.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined) return [];
  const ranges: { range: MediaRange; order: number }[] = [];
  header.split(',').forEach((clause, order) => {
    const [typePart = '', ...paramParts] = clause.split(';');
    const [type = '', subtype = '', extra] = typePart.trim().toLowerCase().split('/');
    if (type === '' || extra !== undefined) return;
    const range: MediaRange = { type, subtype: subtype === '' ? '*' : subtype, params: {}, q: 1 };
    for (const part of paramParts) {
      const eq = part.indexOf('=');
      const key = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
      const value = eq < 0 ? '' : part.slice(eq + 1).trim();
      if (key === '') continue;
      if (key === 'q') {
        const q = Number(value);
        range.q = Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 1;
      } else {
        setOwn(range.params, key, value);
      }
    }
    if (range.q > 0) ranges.push({ range, order });
  });
  const specificity = (r: MediaRange) => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  ranges.sort((a, b) => b.range.q - a.range.q || specificity(b.range) - specificity(a.range) || a.order - b.order);
  return ranges.map((r) => r.range);
}

/** Picks the response representation for `accept` on an endpoint with these restrictions. */
export function negotiateOutput(accept: string | undefined, endpoint: EndpointRestrictions): Negotiation {
  const allowsPlain = endpoint.allowsPlain ?? true;
  const mediaTypes = endpoint.mediaTypes ?? SUPPORTED_MEDIA_TYPES;
  const trimmed = accept?.trim() ?? '';
  if (trimmed === '' && allowsPlain) return plain(mediaTypes[0]!, false);
  for (const range of parseAccept(trimmed)) {
    for (const mediaType of mediaTypes) {
      if (!rangeMatches(range, mediaType)) continue;
      const chosen = acceptClause(range, mediaType, endpoint, allowsPlain);
      if (chosen !== undefined) return chosen;
    }
  }
  return { ok: false, status: notAcceptable(mediaTypes) };
}

function rangeMatches(range: MediaRange, mediaType: SerializerMediaType): boolean {
  const [type, subtype] = mediaType.split('/');
  return (range.type === type && (range.subtype === subtype || range.subtype === '*')) || (range.type === '*' && range.subtype === '*');
}

function acceptClause(
  range: MediaRange,
  mediaType: SerializerMediaType,
  endpoint: EndpointRestrictions,
  allowsPlain: boolean,
): NegotiatedMediaType | undefined {
  const { as: kind, g: group, v: version, stream, pretty } = range.params;
  if (stream !== undefined && stream !== '' && !(stream === 'watch' && endpoint.allowsWatchStream)) return undefined;
  const isPretty = pretty === '1';
  if (kind === undefined && group === undefined && version === undefined) return allowsPlain ? plain(mediaType, isPretty) : undefined;
  const target = endpoint.conversions.find((c) => c.kind === (kind ?? '') && c.group === (group ?? '') && c.version === (version ?? ''));
  if (target === undefined) return undefined;
  // Kubernetes has no protobuf Table (meta/v1's Table is `+protobuf=false`): such a clause is skipped.
  if (target.kind === 'Table' && mediaType === PROTOBUF_MEDIA_TYPE) return undefined;
  // Tables and partial metadata are plain JSON/YAML on the wire (kubectl recognises them by kind);
  // aggregated discovery must echo the conversion, or kubectl parses it as a legacy APIGroupList.
  const echoConversion = target.kind === 'APIGroupDiscoveryList';
  const contentType = echoConversion ? `${mediaType};g=${target.group};v=${target.version};as=${target.kind}` : mediaType;
  return { ok: true, mediaType, target, pretty: isPretty, contentType };
}

function plain(mediaType: SerializerMediaType, pretty: boolean): NegotiatedMediaType {
  return { ok: true, mediaType, pretty, contentType: mediaType };
}

/** `type/subtype` of a Content-Type, lower-cased, without parameters; '' when absent. */
export function parseContentType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The media type of a request body among `accepted`, or a 415 Status listing what is accepted. An
 * absent Content-Type means the first accepted type for create/update bodies; PATCH passes
 * `requireContentType`, because kube-apiserver cannot guess a patch type and answers 415.
 */
export function negotiateInput<T extends string>(
  contentTypeHeader: string | undefined,
  accepted: readonly T[],
  options: { requireContentType?: boolean } = {},
): { ok: true; mediaType: T } | { ok: false; status: Status } {
  const mediaType = parseContentType(contentTypeHeader);
  if (mediaType === '' && !options.requireContentType && accepted.length > 0) return { ok: true, mediaType: accepted[0]! };
  const found = accepted.find((candidate) => candidate === mediaType);
  return found !== undefined ? { ok: true, mediaType: found } : { ok: false, status: unsupportedMediaType(accepted) };
}
