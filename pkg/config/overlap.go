package config

import (
	"fmt"
	"strings"
)

// Overlap is the [overlap] table: seed 000's six phase-overlap
// optimisations of a likelihood evaluation, each on (true, the default)
// or off. Off, in order: a barrier after each phase; Chameleon's solve
// (the tiles of L travel to z's owner); no buffer pool (allocation when a
// task writes, no reuse, no pre-allocation); only the Cholesky's
// priorities; generation submitted in loop order; no extra worker.
type Overlap struct {
	Async           bool `toml:"async"`
	LocalSolve      bool `toml:"local_solve"`
	Memory          bool `toml:"memory"`
	Priorities      bool `toml:"priorities"`
	SubmissionOrder bool `toml:"submission_order"`
	Oversubscribe   bool `toml:"oversubscription"`
}

// AllOverlap returns every optimisation on.
func AllOverlap() Overlap {
	return Overlap{Async: true, LocalSolve: true, Memory: true, Priorities: true, SubmissionOrder: true, Oversubscribe: true}
}

// OverlapKeys are the keys of the [overlap] table, in the order of its
// fields (the --overlap flag also takes them with '-' for '_').
func OverlapKeys() []string {
	return []string{"async", "local_solve", "memory", "priorities", "submission_order", "oversubscription"}
}

func (o *Overlap) fields() []*bool {
	return []*bool{&o.Async, &o.LocalSolve, &o.Memory, &o.Priorities, &o.SubmissionOrder, &o.Oversubscribe}
}

// String returns "async=on,local-solve=off,...", the --overlap syntax.
func (o Overlap) String() string {
	s := make([]string, 0, 6)
	for i, f := range o.fields() {
		v := "off"
		if *f {
			v = "on"
		}
		s = append(s, strings.ReplaceAll(OverlapKeys()[i], "_", "-")+"="+v)
	}
	return strings.Join(s, ",")
}

// Apply applies an --overlap list to o: comma-separated NAME=on|off, NAME
// a key of the table (with '-' or '_') or "all"; later items override
// earlier ones. On error o is unchanged.
func (o *Overlap) Apply(list string) error {
	n := *o
	keys := OverlapKeys()
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		name = strings.ReplaceAll(strings.TrimSpace(name), "-", "_")
		var on bool
		switch strings.TrimSpace(val) {
		case "on", "true":
			on = true
		case "off", "false":
		default:
			ok = false
		}
		if !ok {
			return fmt.Errorf("%q: want NAME=on|off, NAME one of all, %s", item, strings.Join(keys, ", "))
		}
		found := name == "all"
		for i, f := range n.fields() {
			if found && name == "all" || keys[i] == name {
				*f = on
				found = true
			}
		}
		if !found {
			return fmt.Errorf("unknown optimisation %q (want all, %s)", name, strings.Join(keys, ", "))
		}
	}
	*o = n
	return nil
}

// OverlapHelp documents the --overlap flag.
const OverlapHelp = "seed 000's phase-overlap optimisations, all on by default: a list NAME=on|off of " +
	"async (off: a barrier after each phase), local-solve (off: Chameleon's solve, tiles of L travel to z's owner), " +
	"memory (off: no buffer pool, allocation when a task writes, no reuse or pre-allocation), " +
	"priorities (off: only the Cholesky's), submission-order (off: generation in loop order), " +
	"oversubscription (off: no extra worker that never generates), or all; e.g. --overlap all=off,async=on"
