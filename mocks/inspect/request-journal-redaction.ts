import {
  redactBody,
  redactHeaders,
  redactNamedValue,
  redactPath,
  redactText,
  secretsOfBody,
  secretsOfRequest,
  type KnownSecrets,
} from '../../src/contract/redact.js';
import type { AnsweredRequest, EntryInput } from './request-journal.js';
import { BoundedMemo } from '../core/bounded-memo.js';

/**
 * What the journal shows of a request, with every secret cut (src/contract/redact.ts): done as each entry is built,
 * the only form in which anything leaves the journal, so that neither `/__sandbox/requests` and its stream, the
 * dashboard, `topup mock logs` nor the embedded sandbox's request log ever holds a whole token. The secrets the request carried (its credentials, secret query
 * parameters and body fields) are cut word for word wherever they echo, whatever their shape.
 */
export function redactAnswered(answered: AnsweredRequest, known: KnownSecrets = secretsOf(answered)): AnsweredRequest {
  const { notes } = answered;
  return {
    ...answered,
    path: remembered(pathsCut, answered.path, known, redactPath),
    search: redactSearch(answered.search, known),
    headers: redactHeaders(answered.headers, known),
    requestBody: answered.requestBody === null ? null : redactBody(answered.requestBody, known),
    responseBody: answered.responseBody === null ? null : redactAnswer(answered.responseBody, known),
    notes: notes.account === undefined ? notes : { ...notes, account: redactText(notes.account, known) },
  };
}

/**
 * The secrets a request carried (its credentials, secret query parameters and body fields): what every part of its
 * entry is cut for. The same array for the same list, so that the tables below find it again.
 */
export function secretsOf(answered: Pick<AnsweredRequest, 'headers' | 'search' | 'requestBody'>): KnownSecrets {
  return sameList([...secretsOfRequest(answered.headers, answered.search), ...secretsOfBody(answered.requestBody)]);
}

/** An answer's body with the secrets of its request cut (`known`, from secretsOf). */
export function redactAnswer(body: string, known: KnownSecrets): string {
  return remembered(answersCut, body, known, redactBody);
}

/*
 * A bot asks the same things again and again: the same paths, answered with the same bodies (the catalog's is one
 * string for as long as its table stands), carrying the same token. Cutting is a pure function of the text and the
 * secrets it is cut for, so what was cut once is remembered, in small bounded tables, and a live-stream reader (which
 * has every entry built at once) costs a lookup for them. Bodies longer than MEMO_MAX_CHARS are cut every time.
 */
const MEMO_MAX_CHARS = 8_192;
const MEMO_MAX_ENTRIES = 64;

/** One array per distinct list of secrets, so that the tables below and redact.ts's compiled patterns find it again. */
const lists = new BoundedMemo<string, KnownSecrets>(MEMO_MAX_ENTRIES);
const NO_SECRETS: KnownSecrets = [];
function sameList(known: string[]): KnownSecrets {
  return known.length === 0 ? NO_SECRETS : lists.get(known.join('\n'), () => known);
}

/** Per list of secrets, what each text was cut to. */
type CutTable = BoundedMemo<KnownSecrets, BoundedMemo<string, string>>;
const pathsCut: CutTable = new BoundedMemo(MEMO_MAX_ENTRIES);
const answersCut: CutTable = new BoundedMemo(MEMO_MAX_ENTRIES);
const newCuts = () => new BoundedMemo<string, string>(MEMO_MAX_ENTRIES);

function remembered(table: CutTable, text: string, known: KnownSecrets, cut: (text: string, known: KnownSecrets) => string): string {
  if (text.length > MEMO_MAX_CHARS) return cut(text, known);
  return table.get(known, newCuts).get(text, (uncut) => cut(uncut, known));
}

/** An entry built elsewhere (tests, imports), cut by the same rules. */
export function redactEntryInput(input: EntryInput): EntryInput {
  const known = [...secretsOfRequest(input.headers), ...secretsOfBody(input.request_body)];
  for (const [name, value] of Object.entries(input.query))
    known.push(...secretsOfRequest({}, `?${new URLSearchParams({ [name]: value })}`));
  const headers = redactHeaders(input.headers, known);
  return {
    ...input,
    path: redactPath(input.path, known),
    query: Object.fromEntries(
      Object.entries(input.query).map(([name, value]) => [redactText(name, known), redactNamedValue(name, value, known)]),
    ),
    headers,
    idempotency_key: input.idempotency_key === null ? null : redactText(input.idempotency_key, known),
    request_body: input.request_body === null ? null : redactBody(input.request_body, known),
    response_body: input.response_body === null ? null : redactBody(input.response_body, known),
    account: input.account === null ? null : redactText(input.account, known),
  };
}

/** The raw query string with secret parameters and tokens cut (the entry's `query` is parsed from it). */
function redactSearch(search: string, known: KnownSecrets): string {
  if (search === '' || search === '?') return search;
  const shown = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(search)) shown.append(redactText(name, known), redactNamedValue(name, value, known));
  return `?${shown.toString()}`;
}
