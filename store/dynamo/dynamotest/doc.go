// Package dynamotest connects tests to a DynamoDB-compatible server (DynamoDB
// Local, started by ./scripts/test.sh) named by DYNAMODB_ENDPOINT.
//
// Endpoint skips a test, saying how to get a server, when the variable is
// unset; MustClient returns a client for the server with dummy credentials
// unless AWS_* variables give others. The tests that use it create uniquely
// named tables, so several runs may share one server.
package dynamotest
