package testutil

import (
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// DynamoDBStub is an HTTP server that answers every DynamoDB call with an
// empty success ({}, request id "REQ1"), for tests of what wraps the SDK
// client (its middleware), not of DynamoDB.
type DynamoDBStub struct {
	mu      sync.Mutex
	targets []string
}

// Targets returns the X-Amz-Target of every call received, in order
// ("DynamoDB_20120810.GetItem").
func (s *DynamoDBStub) Targets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.targets...)
}

// MustDynamoDBStub starts a DynamoDBStub for the test and points the AWS
// SDK's default configuration at it (endpoint, region, static credentials,
// no shared config files, one attempt per call) through the environment, so
// the test must not be parallel.
func MustDynamoDBStub(t *testing.T) *DynamoDBStub {
	t.Helper()
	stub := &DynamoDBStub{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stub.mu.Lock()
		stub.targets = append(stub.targets, r.Header.Get("X-Amz-Target"))
		stub.mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Requestid", "REQ1")
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(`{}`))), 10))
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": srv.URL, "AWS_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_MAX_ATTEMPTS": "1",
	} {
		t.Setenv(k, v)
	}
	return stub
}
