package repotest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDocsAreReachableFromReadme: every docs/**/*.md is reached from
// README.md by following relative links, so no document is written and
// then lost; and every relative link of README.md and of every document
// under docs/ resolves: the file or directory exists and, for a link into
// a Markdown file, the #anchor names one of its headings.
func TestDocsAreReachableFromReadme(t *testing.T) {
	var all []string
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			all = append(all, filepath.ToSlash(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		doc := queue[0]
		queue = queue[1:]
		for _, target := range markdownLinks(t, doc) {
			if strings.HasSuffix(target, ".md") && !reached[target] {
				if _, err := os.Stat(target); err == nil {
					reached[target] = true
					queue = append(queue, target)
				}
			}
		}
	}
	for _, doc := range all {
		if !reached[doc] {
			t.Errorf("%s is not reachable by links from README.md: link it from docs/README.md (or the document it belongs to)", doc)
		}
	}
	for _, doc := range append([]string{"README.md"}, all...) {
		checkLinks(t, doc)
	}
}

// markdownLinks returns the targets of doc's relative links, as paths from
// the module's root without their #anchor.
func markdownLinks(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	for _, l := range links(t, doc) {
		if file, _, _ := strings.Cut(l, "#"); file != "" {
			out = append(out, path.Join(path.Dir(doc), file))
		}
	}
	return out
}

// checkLinks reports each relative link of doc whose file does not exist
// or whose #anchor is not a heading of its Markdown file.
func checkLinks(t *testing.T, doc string) {
	t.Helper()
	for _, l := range links(t, doc) {
		file, anchor, _ := strings.Cut(l, "#")
		target := doc
		if file != "" {
			target = path.Join(path.Dir(doc), file)
		}
		if _, err := os.Stat(target); err != nil {
			t.Errorf("%s: link %q: %s does not exist", doc, l, target)
			continue
		}
		if anchor != "" && strings.HasSuffix(target, ".md") && !slices.Contains(anchors(t, target), anchor) {
			t.Errorf("%s: link %q: %s has no heading with the anchor #%s", doc, l, target, anchor)
		}
	}
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE   = regexp.MustCompile("`[^`]*`")
	headingRE    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchorRE = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	notSlugRE    = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
)

// links returns the targets of doc's Markdown links that are relative
// (neither a URL nor a mail address), outside code blocks and code spans.
func links(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	for _, line := range proseLines(t, doc) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			if l := m[1]; !strings.Contains(l, "://") && !strings.HasPrefix(l, "mailto:") {
				out = append(out, l)
			}
		}
	}
	return out
}

// anchors returns the anchors GitHub gives doc's headings (lower case,
// punctuation dropped, spaces as hyphens; a repeated one suffixed -1, -2,
// …) and those of its <a name> or <a id> tags.
func anchors(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	seen := map[string]int{}
	for _, line := range proseLines(t, doc) {
		for _, m := range htmlAnchorRE.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := strings.ReplaceAll(notSlugRE.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out = append(out, slug+"-"+strconv.Itoa(n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	return out
}

// proseLines returns doc's lines outside fenced code blocks.
func proseLines(t *testing.T, doc string) []string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}
