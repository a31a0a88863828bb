// Package policy is the gateway's operation policy: what one request may
// ask for, who may ask it, and what it costs its client. It knows
// requests, operations, principals (package auth) and the store's usage
// and codes, not the schema's code or the resolvers: the schema's
// complexity functions come in with the executable schema (package
// complexity), and resolvers.NewHandler, which lists the whole /graphql
// chain in one function, calls this package's constructors at their
// places in it.
//
// # Where each rule runs
//
// Before any body is read, as HTTP middleware (outermost first):
//
//   - Authenticate (access.go): the credential, an oversize one refused
//     with 401; ClientID (client.go) names the client of a request for
//     every per-client rule: a JWT's subject, else its address; API keys
//     are trusted services and not limited.
//   - LimitInFlight (inflight.go): a client's GraphQL-over-HTTP requests
//     served at once (429, IN_FLIGHT_LIMIT_EXCEEDED).
//   - RateLimiter.Gate (ratelimit_refused.go): a client whose budget is
//     below what a refusal costs gets 429 THROTTLED; a request that runs
//     no operation is charged that cost once answered, so refusals cost too.
//   - GuardExplain (explain.go): only API keys and moderators may ask for
//     extensions.plan (X-Explain: 1), unless it is open; WithExplain and
//     RecordPlan collect the plans the resolvers' reads make.
//
// Then inside gqlgen's server, the checks of an operation before it runs:
//
//   - DocumentCache and APQCache (querycache.go): parsed documents and
//     persisted query texts, bounded in bytes (QueryCaches).
//   - NoIntrospection (introspection.go): __schema, __type and _service
//     refused when introspection is off.
//   - MutationGuard (mutationguard.go) puts GuardMutations (access.go) on
//     mutations only: with credentials configured, a mutation needs one.
//   - NewCostLimit (cost.go): one linear pass of package cost measures
//     depth, aliases, expanded fields, _entities representations and
//     complexity before gqlgen validates, each against its Limits
//     (limits.go), each with its own code (4xx); the measure is cached per
//     document and per recent variables (costvars.go).
//
// Around the running operation, RateLimiter.Around (ratelimit.go) takes
// its measured complexity from its client's token bucket, or answers
// THROTTLED with extensions.cost.throttleStatus; the live transport's
// operations and events spend the same buckets (ratelimit_live.go). After
// it, OperationCostReport (costreport.go) builds extensions.cost from the
// store's usage, the measure and the throttle status, and ExplainPlan
// gives extensions.plan.
//
// Every error code decided here is in codes.go; resolvers/codes.go lists
// every code of the gateway with where it is decided. A zero setting
// takes its default by one rule, PositiveOr (defaults.go).
package policy
