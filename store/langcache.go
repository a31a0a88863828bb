package store

import (
	"strings"
	"sync"
)

// maxCachedLanguages bounds canonicalLanguages: a shop has tens of
// languages; tags beyond the bound are canonicalised every time.
const maxCachedLanguages = 1024

// canonicalLanguages caches canonicalLanguage's successful results by tag
// (a pure function, and a tenth of the time of parsing an import's line).
var canonicalLanguages struct {
	m    sync.Map // tag → canonical form
	n    sync.Mutex
	size int
}

// CanonicalLanguage parses a BCP 47 tag and returns its canonical form
// ("EN-gb" → "en-GB"). An empty or malformed tag is EINVALID, and so is a
// POSIX locale such as "en_US" or "de_DE.UTF-8" (which x/text would read as
// a tag): its error names the tag to use instead ("use \"en-US\""). The
// tags it accepted are remembered (canonicalLanguages): every request that
// filters by a language, and every comment written or imported, names one.
func CanonicalLanguage(tag string) (string, error) {
	if c, ok := canonicalLanguages.m.Load(tag); ok {
		return c.(string), nil
	}
	c, err := canonicalLanguage(tag)
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
