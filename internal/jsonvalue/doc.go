// Package jsonvalue decodes JSON text that is already known to be valid
// (json.Valid, or a member of a body jsonmember.Parse accepted) into the
// values encoding/json's Decoder with UseNumber gives for an `any`:
// map[string]any, []any, string, json.Number, bool and nil. It reads the
// text in one pass without reflection, where encoding/json scans it
// twice and builds each value through reflect: the request body's
// variables are decoded on every request. What the fast path does not
// cover (a string with a UTF-16 surrogate escape or a byte that is not
// UTF-8) it hands to encoding/json, so every value is the one encoding/json
// gives (FuzzObject holds that). Invalid text is the caller's to refuse
// first; encoding/json says what is wrong with it.
package jsonvalue
