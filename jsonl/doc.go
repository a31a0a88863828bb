// Package jsonl reads comments from JSON lines, for the `import` command,
// and writes them, for `export` (Writer): one JSON object a line,
//
//	{"id","productId","language","rating","author","title","body","createdAt","authorId",
//	 "status","moderatedAt","moderationReason"}
//
// (authorId, the comment's owner, optional; status, absent for PUBLISHED,
// and the last moderation's time and reason, optional), decoded strictly, validated
// with store.Comment.Validate and delivered in batches. Read checks the
// whole input before it delivers anything, so a file with a bad line loads
// nothing; the error names the first bad lines with their reasons and
// counts them all. Bar draws a one-line progress bar on a terminal, and
// Summary.String is the line printed at the end:
//
//	bar := jsonl.NewBar(os.Stderr)
//	sum, err := jsonl.Read(f, jsonl.Options{Progress: bar.Update}, load)
//	bar.Clear()
//	if err != nil { … }
//	fmt.Fprintln(os.Stderr, sum)
package jsonl
