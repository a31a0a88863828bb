package policy

import "time"

// PositiveOr returns v when it is positive, else def: the rule by which a
// zero (or negative) setting of Config or Limits takes its
// default.
func PositiveOr[T int | int64 | float64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
