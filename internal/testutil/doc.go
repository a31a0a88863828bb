// Package testutil holds what the tests of several packages share and no
// production code uses: SyncBuffer, a buffer that a logger or a child
// process's output copier writes to while the test reads it;
// DynamoDBStub, an HTTP server the AWS SDK's DynamoDB client can call; and
// Docs, the README and docs/ whose examples and tables tests hold to the
// code.
package testutil
