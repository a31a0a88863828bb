// Package trusted serves trusted documents (persisted operations): a
// manifest maps an id to a GraphQL document, clients send the id instead of
// the document, and with Only set the gateway runs nothing else.
//
// A manifest is the JSON object that GraphQL Codegen's client preset writes
// (persisted-documents.json: the SHA-256 hex of each document → the
// document) and that the Relay compiler writes (persisted_queries.json: an
// id, MD5 by default → the document). A client names a document by
// documentId (GraphQL over HTTP's persisted documents: POST body field or
// GET parameter, "sha256:<hex>" or a manifest key) or, APQ style, by
// extensions.persistedQuery.sha256Hash (a manifest key or the SHA-256 of a
// manifest document). APQ and the manifest share that key space: a hash
// the manifest lacks falls through to the APQ cache unless Only is set.
package trusted
