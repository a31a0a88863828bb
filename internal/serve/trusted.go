package serve

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/acme/comments-gateway/trusted"
)

// openTrusted loads the -trusted-documents manifest (nil for none) and
// applies -only-trusted-documents, which needs one.
func openTrusted(path string, only bool, log *slog.Logger) (*trusted.Manifest, error) {
	if path == "" {
		if only {
			return nil, errors.New("-only-trusted-documents needs -trusted-documents FILE (the manifest of the documents to allow)")
		}
		return nil, nil
	}
	m, err := trusted.Load(path)
	if err != nil {
		return nil, fmt.Errorf("-trusted-documents: %w", err)
	}
	m.Only = only
	log.Info("trusted documents", "file", path, "documents", m.Len(), "only", only)
	return m, nil
}
