package jsonl

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Phase is the stage a Read is in.
type Phase int

// The phases of a Read, in order, and those of the export and backup
// commands.
const (
	Checking  Phase = iota // parsing and validating the whole input
	Loading                // delivering batches to fn (parsing the input again if it was too big to keep)
	Exporting              // writing comments (Lines) as JSON lines (Bytes)
	Copying                // copying a file (Bytes of TotalBytes)
)

// String returns "checking", "importing", "exporting" or "copying".
func (p Phase) String() string {
	switch p {
	case Loading:
		return "importing"
	case Exporting:
		return "exporting"
	case Copying:
		return "copying"
	}
	return "checking"
}

// Progress is a snapshot of a Read, passed to Options.Progress.
type Progress struct {
	Phase Phase
	// Lines and Bytes are the input read so far while checking, and all of
	// it while loading.
	Lines int
	Bytes int64
	// TotalBytes is the size of the input; -1 while unknown (checking a
	// pipe).
	TotalBytes int64
	// Comments are the comments checked (Checking) or delivered (Loading)
	// so far.
	Comments int
	// TotalComments are the comments to deliver (Loading); -1 while
	// checking.
	TotalComments int
}

// redrawEvery is the shortest time between two redraws of a Bar.
const redrawEvery = 100 * time.Millisecond

// Bar draws a Read's progress as one line that it redraws in place ("\r"),
// at most ten times a second, when its output is a terminal; otherwise it
// draws nothing. Its Update method fits Options.Progress. A Bar is not safe
// for concurrent use.
type Bar struct {
	w     io.Writer
	tty   bool
	width int // terminal columns; 0 when unknown
	now   func() time.Time

	phase   Phase
	started bool
	since   time.Time // start of the current phase
	last    time.Time // last redraw
	drawn   int       // length of the line on screen, 0 if none
}

// NewBar returns a Bar drawing to w, which is usually os.Stderr. It draws only
// if w is a terminal.
func NewBar(w io.Writer) *Bar {
	b := &Bar{w: w, now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			b.width = cols
		}
	}
	return b
}

// Update redraws the bar for p, unless it was redrawn less than a tenth of a
// second ago in the same phase.
func (b *Bar) Update(p Progress) {
	if !b.tty {
		return
	}
	now := b.now()
	if !b.started || p.Phase != b.phase {
		b.started, b.phase, b.since = true, p.Phase, now
	} else if now.Sub(b.last) < redrawEvery {
		return
	}
	b.last = now
	line := b.format(p, now.Sub(b.since))
	if b.width > 1 && len(line) >= b.width {
		line = line[:b.width-1] // the line is ASCII; one that wraps cannot be redrawn
	}
	pad := max(b.drawn-len(line), 0)
	fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
	b.drawn = len(line)
}

// Clear erases the bar, if drawn, so that the next output starts on a clean
// line. Call it before printing the summary.
func (b *Bar) Clear() {
	if b.drawn > 0 {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.drawn))
		b.drawn = 0
	}
}

// format returns the bar's line for p, elapsed into its phase, e.g.
//
//	importing [#########-----------]  45%  45000/100000 comments  31800/s
//	checking  [####----------------]  20%  12.3/61.2 MB  20480 lines  80.2 MB/s
//	checking  12.3 MB  20480 lines  80.2 MB/s
func (b *Bar) format(p Progress, elapsed time.Duration) string {
	secs := elapsed.Seconds()
	var s strings.Builder
	fmt.Fprintf(&s, "%-9s ", p.Phase)
	if p.Phase == Loading && p.TotalComments > 0 {
		frac := float64(p.Comments) / float64(p.TotalComments)
		fmt.Fprintf(&s, "%s %3.0f%%  %d/%d comments", bar(frac), 100*frac, p.Comments, p.TotalComments)
		if secs > 0 && p.Comments > 0 {
			fmt.Fprintf(&s, "  %.0f/s", float64(p.Comments)/secs)
		}
		return s.String()
	}
	if p.TotalBytes > 0 {
		frac := float64(p.Bytes) / float64(p.TotalBytes)
		fmt.Fprintf(&s, "%s %3.0f%%  %s/%s", bar(frac), 100*frac, mb(p.Bytes), megabytes(p.TotalBytes))
	} else {
		s.WriteString(megabytes(p.Bytes))
	}
	fmt.Fprintf(&s, "  %d lines", p.Lines)
	if secs > 0 && p.Bytes > 0 {
		fmt.Fprintf(&s, "  %s/s", megabytes(int64(float64(p.Bytes)/secs)))
	}
	return s.String()
}

// bar draws fraction frac of a 20-cell bar.
func bar(frac float64) string {
	const cells = 20
	n := int(frac*cells + 0.5)
	n = min(max(n, 0), cells)
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", cells-n) + "]"
}

// mb formats n bytes in MB, without the unit.
func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }

// megabytes formats n bytes in MB.
func megabytes(n int64) string { return mb(n) + " MB" }

// String formats the summary line of an import, e.g.
//
//	imported 100000 comments (12 products, 9 languages) in 3.1s, 32000 comments/s
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %s (%s, %s) in %s",
		plural(s.Comments, "comment"), plural(s.Products, "product"), plural(s.Languages, "language"), duration(s.Elapsed))
	if secs := s.Elapsed.Seconds(); secs > 0 && s.Comments > 0 {
		fmt.Fprintf(&b, ", %.0f comments/s", float64(s.Comments)/secs)
	}
	return b.String()
}

// plural formats n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// duration formats d to a tenth of a second under a minute ("3.1s") and to
// the second above ("2m5s").
func duration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
