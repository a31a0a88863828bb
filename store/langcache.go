package store

import (
	"strings"
	"sync"
)

// maxCachedLanguages bounds canonicalLanguages: a shop has tens of
// languages; tags beyond the bound are canonicalised every time.
const maxCachedLanguages = 1024

// canonicalLanguages caches CanonicalLanguage's successful results by tag
// (a pure function, and a tenth of the time of parsing an import's line).
var canonicalLanguages struct {
	m    sync.Map // tag → canonical form
	n    sync.Mutex
	size int
}

// cachedCanonicalLanguage is CanonicalLanguage, remembering the tags it
// accepted.
func cachedCanonicalLanguage(tag string) (string, error) {
	if c, ok := canonicalLanguages.m.Load(tag); ok {
		return c.(string), nil
	}
	c, err := CanonicalLanguage(tag)
	if err != nil {
		return "", err
	}
	canonicalLanguages.n.Lock()
	defer canonicalLanguages.n.Unlock()
	if canonicalLanguages.size < maxCachedLanguages {
		if _, loaded := canonicalLanguages.m.LoadOrStore(strings.Clone(tag), c); !loaded {
			canonicalLanguages.size++
		}
	}
	return c, nil
}
