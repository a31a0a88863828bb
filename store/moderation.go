package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/acme/comments-gateway/store/table"
)

// Moderation (docs/design.md §12): a comment's status, the queues a
// moderator works through, and the keys that put a comment in them. A
// published comment carries the public indexes' keys and no status; any
// other lacks those keys, so it costs the public read path nothing.

// Status is a comment's moderation status. The zero Status is
// StatusPublished: the attribute status is absent from a published item,
// so every item written before moderation (or with it off) is published.
type Status string

// The statuses.
const (
	StatusPublished Status = ""
	StatusPending   Status = "PENDING"
	StatusRejected  Status = "REJECTED"
	StatusHidden    Status = "HIDDEN"
)

// Name is the status as the API and exports spell it ("PUBLISHED" for
// StatusPublished).
func (st Status) Name() string {
	if st == StatusPublished {
		return "PUBLISHED"
	}
	return string(st)
}

// ParseStatus reads a status name ("" and "PUBLISHED" are StatusPublished).
func ParseStatus(name string) (Status, error) {
	switch st := Status(name); st {
	case StatusPending, StatusRejected, StatusHidden:
		return st, nil
	case "PUBLISHED", StatusPublished:
		return StatusPublished, nil
	}
	return "", Invalid("status", "status must be PUBLISHED, PENDING, REJECTED or HIDDEN, got %q", name)
}

// Queue is a list a moderator works through, oldest comment first.
type Queue string

// The queues: pending comments, published comments with open reports, and
// hidden comments.
const (
	QueuePending  Queue = "PENDING"
	QueueReported Queue = "REPORTED"
	QueueHidden   Queue = "HIDDEN"
)

// ModerationMode is how a deployment moderates (-moderation).
type ModerationMode string

// The modes.
const (
	ModerationOff  ModerationMode = "off"  // every comment is published when it commits
	ModerationPre  ModerationMode = "pre"  // a new or edited comment waits for approval
	ModerationPost ModerationMode = "post" // published at once; reports hide it
)

// ParseModerationMode reads a -moderation value.
func ParseModerationMode(s string) (ModerationMode, error) {
	switch m := ModerationMode(s); m {
	case ModerationOff, ModerationPre, ModerationPost:
		return m, nil
	}
	return "", Errorf(EINVALID, "moderation must be off, pre or post, got %q", s)
}

// Moderation is a store's moderation setting.
type Moderation struct {
	Mode ModerationMode
	// ReportThreshold is the number of reports that hide a published
	// comment in post mode (0: reports never hide).
	ReportThreshold int64
}

// DefaultReportThreshold is -report-threshold's default.
const DefaultReportThreshold = 3

// WithModeration sets the store's moderation (default: off).
func WithModeration(m Moderation) Option { return func(s *Store) { s.mod = m } }

// on reports whether moderation is on (pre or post).
func (m Moderation) on() bool { return m.Mode == ModerationPre || m.Mode == ModerationPost }

// Moderation returns the store's moderation setting.
func (s *Store) Moderation() Moderation { return s.mod }

// MaxReasonLen is the most characters of a moderation or report reason.
const MaxReasonLen = 500

// ModerationShards is the number of partitions of each queue of the
// moderation index: in pre mode every new comment of the site is written
// to the pending queue.
const ModerationShards = 4

const (
	moderationPrefix = "MODERATION#"
	authorPrefix     = "AUTHOR#"
	reportPrefix     = "REPORT#"
	attrReason       = "reason" // a report item's reason
	maxReporterLen   = 256      // bytes of a reporter's identity
	moderationSep    = shardSep // between a queue and its shard
)

// fnvMod is the FNV-1a hash of s modulo n.
func fnvMod(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// ModerationPK is the hash value (in the moderation index) of shard n of
// queue q.
func ModerationPK(q Queue, n int) string {
	return moderationPrefix + string(q) + moderationSep + strconv.Itoa(n)
}

// AuthorPK is the hash value (in byAuthor) of an author's comments.
func AuthorPK(authorID string) string { return authorPrefix + authorID }

// ReportKey is the key of reporter's report of comment id.
func ReportKey(id, reporter string) table.Key { return table.Key{PK: reportPrefix + id, SK: reporter} }

// queue returns the queue c is in ("" for none).
func (c *Comment) queue() Queue {
	switch {
	case c.Status == StatusPending:
		return QueuePending
	case c.Status == StatusHidden:
		return QueueHidden
	case c.Status == StatusPublished && c.Reports > 0:
		return QueueReported
	}
	return ""
}

// moderationAttrs sets c's moderation attributes in its item it: status
// when not published, the moderation index's key while c is in a queue,
// and the counters and reasons when set.
func (c *Comment) moderationAttrs(it table.Item) {
	if c.Status != StatusPublished {
		it[table.AttrStatus] = table.S(string(c.Status))
	}
	if q := c.queue(); q != "" {
		it[table.AttrGSI5PK] = table.S(ModerationPK(q, fnvMod(c.ID, ModerationShards)))
	}
	if c.Reports > 0 {
		it[table.AttrReports] = table.N(c.Reports)
	}
	if !c.ModeratedAt.IsZero() {
		it[table.AttrModeratedAt] = table.S(c.ModeratedAt.UTC().Format(timeLayout))
	}
	if c.ModerationReason != "" {
		it[table.AttrModerationReason] = table.S(c.ModerationReason)
	}
}

// readModeration decodes the moderation attributes of a comment record.
func (c *Comment) readModeration(r table.Record) error {
	switch st := Status(r.S(colStatus)); st {
	case StatusPublished, StatusPending, StatusRejected, StatusHidden:
		c.Status = st
	default:
		return Errorf(EINTERNAL, "corrupt comment item %q: status %q", r.S(colPK), st)
	}
	var err error
	c.Reports = r.N(colReports)
	c.ModerationReason = r.S(colModerationReason)
	if at := r.S(colModeratedAt); at != "" {
		if c.ModeratedAt, err = parseTime(at); err != nil {
			return Wrap(EINTERNAL, err, "corrupt comment item %q: moderatedAt", r.S(colPK))
		}
	}
	return nil
}

// commentItem is the item the store writes for c: c.Item(), with the
// author's index key when moderation is on (so that the author finds the
// comment in every status).
func (s *Store) commentItem(c *Comment) table.Item {
	it := c.Item()
	if s.mod.on() && c.AuthorID != "" {
		it[table.AttrGSI6PK] = table.S(AuthorPK(c.AuthorID))
	}
	return it
}

// publicChange is what subscribers see of a write that took a comment
// from old to c (nil: absent): a comment enters their lists when it is
// published and leaves when it is unpublished; a write of an unpublished
// comment is no change (Kind "").
func publicChange(old, c *Comment) Change {
	wasPub := old != nil && old.Status == StatusPublished
	isPub := c != nil && c.Status == StatusPublished
	switch {
	case wasPub && isPub:
		return Change{Kind: ChangeUpdated, Comment: c, Old: old}
	case isPub:
		return Change{Kind: ChangeAdded, Comment: c}
	case wasPub:
		return Change{Kind: ChangeDeleted, Comment: old}
	}
	return Change{}
}

// PublicChange is publicChange for a backend that derives changes from its
// own record of writes (DynamoDB's stream).
func PublicChange(old, c *Comment) Change { return publicChange(old, c) }

// rewriteOps returns the write that takes a comment from old to c (nil:
// absent, for a create or a delete) under conds: the counter changes of
// the published comments among them (a comment counts while published) and
// the comment's put or delete, last.
func (s *Store) rewriteOps(old, c *Comment, conds []table.Cond) []table.Op {
	d := statsDelta{}
	if old != nil && old.Status == StatusPublished {
		d.add(old, -1)
	}
	if c != nil && c.Status == StatusPublished {
		d.add(c, +1)
	}
	pid, id := "", ""
	if c != nil {
		pid, id = c.ProductID, c.ID
	} else {
		pid, id = old.ProductID, old.ID
	}
	ops := deltaOps(pid, d)
	if c == nil {
		return append(ops, table.Op{Kind: table.OpDelete, Key: CommentKey(id), Conds: conds})
	}
	return append(ops, table.Op{Kind: table.OpPut, Key: CommentKey(id), Item: s.commentItem(c), Conds: conds})
}

// statusCond is the condition that a comment's status is still st.
func statusCond(st Status) table.Cond {
	if st == StatusPublished {
		return table.Cond{Kind: table.CondAbsent, Attr: table.AttrStatus}
	}
	return table.Cond{Kind: table.CondEquals, Attr: table.AttrStatus, Value: table.S(string(st))}
}

// Action is a moderator's transition of a comment.
type Action string

// The moderators' actions (see transition).
const (
	ActionApprove Action = "approve"
	ActionReject  Action = "reject"
	ActionHide    Action = "hide"
	ActionRestore Action = "restore"
)

// transition returns the comment a moved by action a, and whether a
// applies to its status:
//   - approve: PENDING → PUBLISHED; a published comment with reports stays
//     published, its reports dismissed;
//   - reject: PENDING or HIDDEN → REJECTED;
//   - hide: PUBLISHED → HIDDEN;
//   - restore: HIDDEN or REJECTED → PUBLISHED.
//
// Every transition closes the open reports.
func transition(old *Comment, a Action) (Comment, bool) {
	c := *old
	c.Reports = 0
	switch {
	case a == ActionApprove && (old.Status == StatusPending || old.Status == StatusPublished && old.Reports > 0),
		a == ActionRestore && (old.Status == StatusHidden || old.Status == StatusRejected):
		c.Status = StatusPublished
	case a == ActionReject && (old.Status == StatusPending || old.Status == StatusHidden):
		c.Status = StatusRejected
	case a == ActionHide && old.Status == StatusPublished:
		c.Status = StatusHidden
	default:
		return c, false
	}
	return c, true
}

// validateReason checks an optional reason: empty, or visible text of at
// most MaxReasonLen characters.
func validateReason(reason string) error {
	if reason == "" {
		return nil
	}
	return ValidateText("reason", reason, MaxReasonLen)
}

// errModerationOff refuses a moderation operation of a store with
// moderation off.
func errModerationOff() error {
	return Errorf(EINVALID, "moderation is off on this gateway (its -moderation is off)")
}

// checkModeration refuses a moderation operation on comment id with
// reason when moderation is off or either argument is invalid.
func (s *Store) checkModeration(id, reason string) error {
	if !s.mod.on() {
		return errModerationOff()
	}
	if err := ValidateID("id", id); err != nil {
		return err
	}
	return validateReason(reason)
}

// Moderate applies a moderator's action to comment id, with reason (may be
// empty), in one atomic write conditional on the comment's version and
// status, which moves its counts when it is published or unpublished. A
// comment whose status the action does not apply to, as read or because
// another moderator moved it first, is ECONFLICT; a missing one ENOTFOUND.
func (s *Store) Moderate(ctx context.Context, id string, a Action, reason string) (*Comment, error) {
	if err := s.checkModeration(id, reason); err != nil {
		return nil, err
	}
	var out *Comment
	var refusal error
	err := s.retry(ctx, func() error {
		old, err := s.getComment(ctx, id)
		if err != nil {
			return err
		}
		c, ok := transition(old, a)
		if !ok {
			refusal = Errorf(ECONFLICT, "comment %q is %s: it cannot %s", id, old.Status.Name(), a)
			return nil
		}
		c.Version = old.Version + 1
		c.ModeratedAt = s.now().UTC()
		c.ModerationReason = reason
		conds := []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(old.Version)}, statusCond(old.Status)}
		if err := s.commitSettled(ctx, s.rewriteOps(old, &c, conds), publicChange(old, &c)); err != nil {
			return err
		}
		out = &c
		return nil
	})
	if refusal != nil {
		return nil, refusal
	}
	return out, err
}

// ReportComment records reporter's report of published comment id, once
// per reporter and comment: one write of the report item (on condition it
// does not exist) and of the comment's report counter, which puts the
// comment in the REPORTED queue and, in post mode, hides it when it
// reaches the report threshold. A second report by the same reporter
// changes nothing and is no error. A comment that is not published is
// ENOTFOUND (the public does not see it).
func (s *Store) ReportComment(ctx context.Context, id, reporter, reason string) (*Comment, error) {
	if err := s.checkModeration(id, reason); err != nil {
		return nil, err
	}
	if reporter == "" || len(reporter) > maxReporterLen {
		return nil, Errorf(EINVALID, "a report needs its reporter's identity (1 to %d bytes)", maxReporterLen)
	}
	rk := ReportKey(id, reporter)
	var out *Comment
	err := s.retry(ctx, func() error {
		old, err := s.getComment(ctx, id)
		if err != nil {
			return err
		}
		if old.Status != StatusPublished {
			return Errorf(ENOTFOUND, "comment %q not found", id)
		}
		if prev, err := s.table.Get(ctx, rk); err != nil || prev != nil {
			out = old
			return tableError(err)
		}
		c := *old
		c.Version++
		c.Reports++
		if s.mod.Mode == ModerationPost && s.mod.ReportThreshold > 0 && c.Reports >= s.mod.ReportThreshold {
			c.Status = StatusHidden
			c.ModeratedAt = s.now().UTC()
			c.ModerationReason = fmt.Sprintf("hidden after %d reports", c.Reports)
		}
		conds := []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(old.Version)}, statusCond(old.Status)}
		report := table.Item{table.AttrPK: table.S(rk.PK), table.AttrSK: table.S(rk.SK), table.AttrCreatedAt: table.S(s.now().UTC().Format(timeLayout))}
		if reason != "" {
			report[attrReason] = table.S(reason)
		}
		ops := append(s.rewriteOps(old, &c, conds), table.Op{Kind: table.OpPut, Key: rk, Item: report, Conds: []table.Cond{{Kind: table.CondNotExists}}})
		if err := s.commitSettled(ctx, ops, publicChange(old, &c)); err != nil {
			return err
		}
		out = &c
		return nil
	})
	return out, err
}

// purgeReports deletes the report items of deleted comment id (after the
// comment's delete: a report of a comment that is gone is read by nothing,
// so a failure leaves only garbage).
func (s *Store) purgeReports(ctx context.Context, id string) error {
	return s.purgePartition(ctx, ReportKey(id, "").PK)
}
