import type { GraphQLFormattedError } from 'graphql';

/**
 * Every `extensions.code` the gateway may answer with, as
 * schema/error-codes.json publishes them (from errorCodes in
 * resolvers/codes.go): the Go test TestExampleErrorCodesListEveryCode
 * (resolvers/codes_example_test.go) keeps this list equal to them.
 */
export const errorCodes = [
  'ALIAS_LIMIT_EXCEEDED',
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'COMPLEXITY_LIMIT_EXCEEDED',
  'CONFLICT',
  'DEPTH_LIMIT_EXCEEDED',
  'ENTITY_LIMIT_EXCEEDED',
  'FORBIDDEN',
  'FORBIDDEN_ORIGIN',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'INTERNAL',
  'IN_FLIGHT_LIMIT_EXCEEDED',
  'LIMIT_EXCEEDED',
  'METHOD_NOT_ALLOWED',
  'NOT_FOUND',
  'PERSISTED_QUERY_NOT_FOUND',
  'REQUEST_TIMEOUT',
  'REQUEST_TOO_LARGE',
  'SELECTION_LIMIT_EXCEEDED',
  'SLOW_CONSUMER',
  'SUBSCRIPTION_BUDGET_EXCEEDED',
  'THROTTLED',
  'TOO_MANY_ERRORS',
  'TRUSTED_DOCUMENT_MISMATCH',
  'TRUSTED_DOCUMENT_REQUIRED',
  'UNAUTHENTICATED',
  'UNAVAILABLE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** A code the gateway sends in `extensions.code`. */
export type ErrorCode = (typeof errorCodes)[number];

const known = new Set<string>(errorCodes);

/** The error's code, or undefined when it has none the gateway defines. */
export function errorCode(error: GraphQLFormattedError): ErrorCode | undefined {
  const code = error.extensions?.code;
  return typeof code === 'string' && known.has(code) ? (code as ErrorCode) : undefined;
}
