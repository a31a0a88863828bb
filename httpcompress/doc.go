// Package httpcompress compresses the gateway's HTTP replies with gzip or
// zstd (github.com/klauspost/compress/gzhttp), as the client's
// Accept-Encoding asks: replies of MinSize bytes or more, with Vary:
// Accept-Encoding and an ETag per encoding (RFC 9110 §8.8.3: the tag of a
// gzip reply ends in -gzip, of a zstd one in -zstd), so a revalidation
// with the encoded tag still gets 304. Websocket upgrades and SSE streams
// pass untouched: a hijacked connection has no body to compress, and an
// event must reach the client when it is written, not when a compressor's
// block fills.
package httpcompress
