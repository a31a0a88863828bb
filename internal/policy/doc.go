// Package policy is the gateway's operation policy: what a request may ask
// for and who may ask it, decided before and around the resolvers.
// resolvers.NewHandler lists the whole /graphql chain in one function and
// calls this package's constructors at their places in it.
package policy
