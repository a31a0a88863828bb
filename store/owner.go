package store

import "github.com/acme/comments-gateway/store/table"

// Owner says whose comments a change may touch: the ownership rule of
// UpdateComment and DeleteComment. AnyOwner (the zero Owner) allows any
// comment: a moderator's change, an API key's, or any change on a gateway
// without credentials. OwnedBy(id) allows only the comments whose AuthorID
// is id; a comment without an AuthorID belongs to nobody.
//
// The rule is checked twice, with one answer: on the comment as read (so a
// refused change reads no stats), and as a condition of the write itself,
// in the same transaction as the change, so an owner that changed between
// the read and the write (a bulk import replacing the comment, say) cannot
// slip through. Either refusal is EFORBIDDEN.
type Owner struct {
	authorID string
	only     bool
}

// AnyOwner places no restriction on whose comment a change touches.
var AnyOwner = Owner{}

// OwnedBy restricts a change to the comments whose AuthorID is authorID.
func OwnedBy(authorID string) Owner { return Owner{authorID: authorID, only: true} }

// check refuses a change of c, as read, that o does not allow.
func (o Owner) check(c *Comment) error {
	if o.only && c.AuthorID != o.authorID {
		return notTheAuthor(c.ID, nil)
	}
	return nil
}

// conds returns the conditions of a comment's write: version, as read (a
// concurrent change is a conflict, and a deleted comment one too, found
// missing on the retry), then ownership, whose failure is EFORBIDDEN.
func (o Owner) conds(version int64) []table.Cond {
	conds := []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(version)}}
	if o.only {
		conds = append(conds, table.Cond{Kind: table.CondEquals, Attr: table.AttrAuthorID, Value: table.S(o.authorID), Code: EFORBIDDEN})
	}
	return conds
}

// refused gives the write's EFORBIDDEN (the ownership condition failed)
// the message of a refused change of comment id; other errors stay.
func refused(id string, err error) error {
	if ErrorCode(err) == EFORBIDDEN {
		return notTheAuthor(id, err)
	}
	return err
}

// notTheAuthor is the EFORBIDDEN error of a change of comment id by someone
// else than its author.
func notTheAuthor(id string, cause error) *Error {
	return Wrap(EFORBIDDEN, cause, "comment %q is not yours: only its author or a moderator may change it", id)
}
