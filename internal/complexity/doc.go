// Package complexity is the comments schema's complexity functions: what
// each field may read, with list fields multiplied by the page they may
// return. The cost limit (package policy) measures an operation with them
// before it runs, and the rate limit charges what they give; the
// gateway keeps to one rule with them: an operation reads at most as many
// items as its complexity. The functions are the schema's (package graph),
// so they live beside it, not in the schema-free policy.
package complexity
