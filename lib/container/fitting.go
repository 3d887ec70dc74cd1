package container

import "github.com/rules-offload/rules_offload/lib/ccob"

// Fitting is how many of ms, an archive's members in archive order, fit
// the input's budget together by what their compressed records declare:
// the members a sequential walk decodes before its budget refuses one.
// Callers that decode members side by side (the bundler's shards) decode
// those first and the rest in order after them, so that no member races
// another for the budget and the member refused, and the error naming it,
// are a sequential walk's whatever the scheduling.
func (in *Input) Fitting(ms []Piece) (n int, err error) {
	defer FaultGuard(&err, func(e error) error { return e })()
	left := in.budget.Limit() - min(in.budget.Used(), in.budget.Limit())
	for i, m := range ms {
		d := ccob.DeclaredSize(m.Data, m.Size)
		if d > left {
			return i, nil
		}
		left -= d
	}
	return len(ms), nil
}
