// Package nodeid makes and reads the global ids of the GraphQL Node interface
// (Relay Global Object Identification): Product.nodeId, Comment.nodeId and
// the argument of Query.node and Query.nodes.
//
// A global id is the unpadded URL-safe base64 of "TYPE:ID", where TYPE is the
// GraphQL type name and ID the catalog product id or the comment id. The type
// prefix keeps a product and a comment with the same id apart (both ids are
// 1–64 of [A-Za-z0-9_-], and an import keeps comment ids as given), and
// URL-safe base64 keeps the id usable in a URL path. Clients treat it as
// opaque.
package nodeid
