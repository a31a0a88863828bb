//go:build !unix

package livehttp

import "syscall"

// rawWriter is absent where a socket's writes are not at hand: a
// batchConn's writer then sends and waits for the socket itself.
type rawWriter struct{}

func newRawWriter(syscall.RawConn) *rawWriter { return nil }

func (*rawWriter) writeNow([]byte) (int, error) { return 0, nil }
