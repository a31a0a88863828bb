package flagenv

import (
	"fmt"

	"github.com/dustin/go-humanize"
)

// Bytes is a flag holding a number of bytes, written as a plain number
// or with a unit: 64MB (SI, 64,000,000) or 64MiB (binary, 64×2²⁰), as
// go-humanize parses them.
type Bytes int64

// String prints the size in bytes.
func (b *Bytes) String() string { return fmt.Sprint(int64(*b)) }

// Set parses a size such as 64MB, 512KiB or 1000000.
func (b *Bytes) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil || n > 1<<62 {
		return fmt.Errorf("want a size such as 64MB or 512KiB, got %q", s)
	}
	*b = Bytes(n)
	return nil
}
