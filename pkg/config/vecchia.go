package config

import "strings"

// checkVecchia refuses, for computation vecchia, the fit's settings that
// its path does not have in this version (each by its key): the tiled
// matrix's settings (nb, lookahead, hpotrf, solve, devices, GPUs, the
// scheduler's performance model), the profiled search, the assessments
// that need the exact factor (profile intervals, maps, MLOE/MMOM); and
// vecchia_sets_out without a way to write it; vecchia_check_m not above
// vecchia_m (or given without computation vecchia); and vecchia_refine_m
// where it cannot refine (checkRefine).
func (f *Fit) checkVecchia(bad func(key, format string, args ...any) error) error {
	switch {
	case f.Computation != "vecchia" && f.VecchiaCheckM != 0:
		return bad("vecchia_check_m", "--vecchia-check-m is for --computation vecchia")
	case f.Computation != "vecchia" && f.VecchiaRefineM != 0:
		return bad("vecchia_refine_m", "--vecchia-refine-m is for --computation vecchia")
	case f.Computation != "vecchia" && f.VecchiaSelect != "nearest" && f.VecchiaSelect != "":
		return bad("vecchia_select", "--vecchia-select is for --computation vecchia")
	case f.Computation != "vecchia" && f.VecchiaCandidates != 0:
		return bad("vecchia_candidates", "--vecchia-candidates is for --computation vecchia")
	case f.Computation != "vecchia":
		return nil
	case f.VecchiaCheckM != 0 && f.VecchiaCheckM <= f.Vecchia.M:
		return bad("vecchia_check_m", "--vecchia-check-m must be above --vecchia-m %d, got %d", f.Vecchia.M, f.VecchiaCheckM)
	}
	if err := f.checkRefine(bad); err != nil {
		return err
	}
	if err := f.checkSelect(bad); err != nil {
		return err
	}
	type refusal struct {
		key  string
		set  bool
		what string
	}
	for _, r := range []refusal{
		{"nb", f.NB != 0, "tiles"},
		{"lookahead", f.Lookahead != 0, "a tiled Cholesky"},
		{"hpotrf", f.HPotrf != 0, "a tiled Cholesky"},
		{"gpus", f.GPUs != 0, "GPU workers in this version"},
		{"devices", f.Devices != "", "devices in this version"},
		{"perfmodel", f.PerfModel != "", "a performance model"},
		{"profile", f.Profile == "on", "a profiled search (the Fisher scoring takes sigma2 with the others)"},
		{"ci", f.CI == "profile", "profile intervals in this version (--stderr gives Wald intervals)"},
		{"plot", f.Plot != "", "pictures in this version"},
		{"grid", f.Grid != "", "maps in this version"},
		{"true_theta", f.TrueTheta != nil, "MLOE/MMOM in this version"},
	} {
		if r.set {
			return bad(r.key, "--%s: --computation vecchia has no %s", flagName(r.key), r.what)
		}
	}
	return nil
}

// VecchiaCheckMAt returns the approximation check's m2 for a fit at m:
// vecchia_check_m (0: twice vecchia_m) at vecchia_m, and the same ratio,
// rounded down but above m, at a refined m.
func (f *Fit) VecchiaCheckMAt(m int) int {
	c := f.VecchiaCheckM
	if c <= 0 {
		c = 2 * f.Vecchia.M
	}
	if m == f.Vecchia.M || f.Vecchia.M <= 0 {
		return c
	}
	return max(m*c/f.Vecchia.M, m+1)
}

// checkRefine refuses vecchia_refine_m where it cannot refine: a negative
// value, below the first check's m2 (it would never refine), without the
// check, with a sets file (no larger m), or with a BOBYQA search (the
// refinement continues the Fisher scoring's stages).
func (f *Fit) checkRefine(bad func(key, format string, args ...any) error) error {
	r := f.VecchiaRefineM
	switch {
	case r == 0:
		return nil
	case r < 0:
		return bad("vecchia_refine_m", "--vecchia-refine-m must be >= 0 (0: off), got %d", r)
	case r < f.VecchiaCheckMAt(f.Vecchia.M):
		return bad("vecchia_refine_m", "--vecchia-refine-m %d is below the check's m = %d (--vecchia-check-m): it would never refine", r, f.VecchiaCheckMAt(f.Vecchia.M))
	case !f.VecchiaCheck:
		return bad("vecchia_refine_m", "--vecchia-refine-m needs the approximation check (--vecchia-check=false turns it off)")
	case f.Vecchia.Sets != "":
		return bad("vecchia_refine_m", "--vecchia-refine-m: --vecchia-sets gives the sets (no larger m to refine to)")
	case f.Search == "bobyqa" || (f.Given("search") && f.Search != "fisher"):
		return bad("vecchia_refine_m", "--vecchia-refine-m continues the Fisher scoring (--search fisher), not --search %s", f.Search)
	}
	return nil
}

// Greedy reports vecchia_select greedy: the final stage's sets chosen by
// conditional variance at the coarse stage's estimate.
func (f *Fit) Greedy() bool { return f.VecchiaSelect == "greedy" }

// CandidatesAt returns the greedy selection's K for a fit at m:
// vecchia_candidates, or 3m when it is 0.
func (f *Fit) CandidatesAt(m int) int {
	if f.VecchiaCandidates > 0 {
		return f.VecchiaCandidates
	}
	return 3 * m
}

// checkSelect refuses vecchia_select and vecchia_candidates where the
// greedy selection cannot work: an unknown rule, candidates without
// greedy or fewer than vecchia_m, a sets file (it gives the sets), a
// BOBYQA search (the selection sits between the Fisher scoring's
// stages), and the bivariate Matérn (its locations are pairs of
// variables: the rule has no single covariance to read).
func (f *Fit) checkSelect(bad func(key, format string, args ...any) error) error {
	k := f.VecchiaCandidates
	switch {
	case f.VecchiaSelect != "" && f.VecchiaSelect != "nearest" && f.VecchiaSelect != "greedy":
		return bad("vecchia_select", "--vecchia-select must be nearest or greedy, got %q", f.VecchiaSelect)
	case k < 0:
		return bad("vecchia_candidates", "--vecchia-candidates must be >= 0 (0: 3 --vecchia-m), got %d", k)
	case k != 0 && !f.Greedy():
		return bad("vecchia_candidates", "--vecchia-candidates is for --vecchia-select greedy")
	case !f.Greedy():
		return nil
	case k != 0 && k <= f.Vecchia.M:
		return bad("vecchia_candidates", "--vecchia-candidates %d must be above --vecchia-m %d (the m are chosen among them)", k, f.Vecchia.M)
	case f.Vecchia.Sets != "":
		return bad("vecchia_select", "--vecchia-select greedy: --vecchia-sets gives the sets")
	case f.Search == "bobyqa" || (f.Given("search") && f.Search != "fisher"):
		return bad("vecchia_select", "--vecchia-select greedy chooses the sets between the Fisher scoring's stages (--search fisher), not with --search %s", f.Search)
	case f.Kernel == BivariateKernel:
		return bad("vecchia_select", "--vecchia-select greedy: the bivariate Matérn's locations are pairs of variables (the selection reads one covariance a location)")
	}
	return nil
}

// flagName returns the flag of a key (its '_' as '-').
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// checkVecchia refuses, for computation vecchia, the prediction's
// settings that its path does not have: tiles, block kriging, the sets
// files and the grouping (fit's).
func (p *Predict) checkVecchia(bad func(key, format string, args ...any) error) error {
	if p.Computation != "vecchia" {
		return nil
	}
	switch {
	case p.NB != 0:
		return bad("nb", "--nb: --computation vecchia has no tiles")
	case p.Blocks != "":
		return bad("blocks", "--blocks: --computation vecchia has no block kriging in this version")
	case p.Vecchia.Sets != "" || p.Vecchia.SetsOut != "":
		return bad("vecchia_sets", "--vecchia-sets and --vecchia-sets-out are for fit")
	case p.Vecchia.Ungrouped():
		return bad("vecchia_grouping", "--vecchia-grouping is for fit")
	}
	return nil
}
