package store

// SetSizing changes a store's merge sizing (for tuning experiments).
func (s *Store) SetSizing(sz Sizing) (old Sizing) { old, s.sizing = s.sizing, sz; return old }

// Unexported functions that the external tests (package store_test) call.
var (
	ParseSortKey          = parseSortKey
	ValidateMultilineText = validateMultilineText
	PlanSequence          = planSequence
)

// SetLocal makes a store merge as on a local (true) or remote table.
func (s *Store) SetLocal(local bool) (old bool) { old, s.local = s.local, local; return old }

// CommentColumns are the columns a page's comments are read in.
var CommentColumns = commentColumns
