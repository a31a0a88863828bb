// Package auth owns who may change comments: API keys (configured as SHA-256
// hashes and compared in constant time), optional JWT bearer tokens verified
// against a JWKS URL, and the Principal a request carries in its context.
// Reads never need a credential; the GraphQL layer asks for one on mutations.
package auth
