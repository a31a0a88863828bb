package store

import (
	"errors"
	"time"
)

// StreamShard is one shard of a table's change stream (DynamoDB Streams).
type StreamShard struct {
	ID     string
	Parent string // "" for none
	// Closed: the shard has an ending sequence number, so once read to its
	// end it has no more records (its children continue it).
	Closed bool
}

// StreamRecord is one record of a table's change stream, as a comment
// change.
type StreamRecord struct {
	// Seq is the record's sequence number (the checkpoint after it).
	Seq string
	// Created is when the record was written (approximate).
	Created time.Time
	// Change is the comment change, with its ID from StreamChangeID; nil
	// when the record is not of a comment item (statistics, change log,
	// lease) or is an update that changed nothing a subscriber sees.
	Change *Change
}

// ErrIteratorExpired is returned (wrapped, code EUNAVAILABLE) when a
// stream iterator is older than its 15 minutes or points into trimmed
// data: get a new one from the checkpoint.
var ErrIteratorExpired = errors.New("store: stream iterator expired")
