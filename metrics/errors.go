package metrics

import "github.com/prometheus/client_golang/prometheus"

// newGraphQLErrors is the counter of ObserveGraphQLError.
func newGraphQLErrors() *prometheus.CounterVec {
	return counterVec("comments_graphql_errors_total",
		"GraphQL errors the gateway's error presenter produced, by extensions.code (the fixed set of the error codes of docs/api.md).", "code")
}

// InitGraphQLErrorCodes makes the error counter's series of codes exist at
// zero, so that /metrics lists every code before its first error. The
// caller passes the fixed set of codes the gateway produces (package
// resolvers owns it): the label's values are never a client's choice.
func (c *Collectors) InitGraphQLErrorCodes(codes []string) {
	if c == nil {
		return
	}
	for _, code := range codes {
		c.gqlErrors.WithLabelValues(code)
	}
}

// ObserveGraphQLError counts one GraphQL error with extensions.code code.
func (c *Collectors) ObserveGraphQLError(code string) {
	if c == nil {
		return
	}
	c.gqlErrors.WithLabelValues(code).Inc()
}
