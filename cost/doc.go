// Package cost measures a GraphQL operation before anything runs it, in one
// pass that is linear in the size of the document.
//
// # The model
//
// A document is operations and fragment definitions; each is a tree of
// selections (fields, inline fragments, fragment spreads). Expanding every
// spread can make a document of a kilobyte ask for 2^27 fields (27
// fragments, each spreading the next twice), so nothing here expands a
// spread. Instead each fragment definition is measured once, on the type of
// its type condition, and its measure — a [Shape] — is memoized: a spread
// adds the fragment's shape where it appears. A fragment's fields resolve
// against its type condition wherever it is spread, so its shape does not
// depend on the spread's parent type, and one memo entry per fragment is
// enough. Every selection node of the document is visited once: the work
// ([Result.Steps]) is at most the number of selections in the document.
//
// One pass gives, for the executed operation:
//
//   - Depth: 1 plus the longest chain of nested non-introspection fields that
//     have a selection set (introspection is bounded by the schema).
//   - Aliases: aliased fields, each counted as often as expansion repeats it.
//   - Fields: fields once every spread is expanded (multiplied through
//     fragments, saturating, never walked).
//   - Complexity: gqlgen's complexity (package complexity's Calculate, with
//     the schema's custom complexity functions), computed bottom-up: a field
//     costs its custom cost of (its children's cost, its arguments), or 1 plus
//     its children's cost; fields of __Schema cost nothing; a field of an
//     interface costs its most expensive implementation. Apollo Federation's
//     _entities is a list: 1 + representations × its selection's cost.
//   - Entities: representations asked of _entities, over the operation.
//
// and, for the whole document, DocumentFields: the expanded fields of every
// operation and every fragment definition — the work gqlgen's validation
// (which checks each of them, and merges fields quadratically) would face.
//
// All sums and products saturate at [Max], so no document overflows them.
//
// The pass needs no validated document: it resolves fields against the
// schema itself and gives unknown fields, types and fragments a cost of 1
// (or nothing) — validation refuses such a document later anyway. Fragment
// cycles (also refused by validation) are cut where they close.
package cost
