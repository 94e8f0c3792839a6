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

/**
 * What the journal shows of a request, with every secret cut (src/contract/redact.ts): done as each entry is built,
 * the only form in which anything leaves the journal, so that neither `/__sandbox/requests` and its stream, the
 * dashboard, `topup mock logs` nor the embedded sandbox's request log ever holds a whole token. The secrets the request carried (its credentials, secret query
 * parameters and body fields) are cut word for word wherever they echo, whatever their shape.
 */
export function redactAnswered(answered: AnsweredRequest): AnsweredRequest {
  const known = [...secretsOfRequest(answered.headers, answered.search), ...secretsOfBody(answered.requestBody)];
  const { notes } = answered;
  return {
    ...answered,
    path: redactPath(answered.path, known),
    search: redactSearch(answered.search, known),
    headers: redactHeaders(answered.headers, known),
    requestBody: answered.requestBody === null ? null : redactBody(answered.requestBody, known),
    responseBody: answered.responseBody === null ? null : redactBody(answered.responseBody, known),
    notes: notes.account === undefined ? notes : { ...notes, account: redactText(notes.account, known) },
  };
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
