package store

// SetMergeSlack changes the planner's merge slack (for tuning experiments).
func SetMergeSlack(v float64) (old float64) { old, mergeSlack = mergeSlack, v; return old }
