// Package dynamo implements table.Table on Amazon DynamoDB with
// aws-sdk-go-v2.
//
// It owns everything DynamoDB-specific and nothing else: the table and index
// definition (CreateTable, mirrored in deploy/dynamodb-table.json for
// `aws dynamodb create-table --cli-input-json`), the mapping between
// table.Item values (string and int64) and attribute values (S and N), key
// condition and update expressions built with the expression builder, the
// DynamoDB limits (100 keys a BatchGetItem, 25 items a BatchWriteItem, 100
// items a TransactWriteItems), the retry of unprocessed batch keys and items,
// and the translation of DynamoDB errors into store error codes:
//
//	ConditionalCheckFailed (also inside a cancelled transaction) → ECONFLICT, or the failed condition's
//	                                                               own code (table.Cond.Code, told from the
//	                                                               item returned with the failure), Op = index
//	                                                               of the failed operation
//	TransactionConflict                                          → ECONFLICT, Op = -1
//	throttling, 5xx, timeouts after the SDK's retries, deadline  → EUNAVAILABLE
//	a missing table, rejected credentials                        → EUNAVAILABLE
//	an item over DynamoDB's size limit, an invalid argument      → EINVALID
//	any other error                                              → EINTERNAL
//
// Reads are key-condition queries only; the package never sends a
// FilterExpression, and Scan exists only for rebuild-stats.
//
// Throttling, 5xx responses and network timeouts of a single request are
// retried by the SDK's standard retryer, which Open configures (see
// MaxAttempts); every wait is bounded by the request's context. A test or a
// caller with its own client passes any Client to New: the package calls
// nothing outside that small interface, so a wrapper can observe calls or
// inject faults.
package dynamo
