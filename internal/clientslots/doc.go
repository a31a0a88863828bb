// Package clientslots bounds what each client holds at once — its HTTP
// requests in flight, its live connections, its operations in flight on
// them — by counting a slot per thing held: the one rule of every
// per-client cap of the gateway.
//
// A Slots is one cap with its own limit. Take gives a client a slot or
// refuses it; the release it returns gives the slot back, once. A client
// is a string its caller names (policy.ClientID); "" (an API
// key, a trusted service) is never counted nor refused, and a client
// holding nothing is forgotten, so memory follows the clients holding
// slots, not every client seen.
package clientslots
