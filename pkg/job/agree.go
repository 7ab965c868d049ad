package job

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/tile"
)

// Agreement across ranks.
//
// Every rank of a distributed job submits the whole task graph; the graphs
// match, and the messages between the ranks pair up, only when every rank
// works on the same data with the same settings. The data is the same by
// construction: rank 0 reads every input and broadcasts its bytes (Inputs),
// which every rank parses alike. The first collective of fit, simulate and
// predict, before the inputs are read, compares on rank 0
//
//   - the settings: every key of the validated configuration (pkg/config,
//     by its TOML name, embedded and nested tables included, so that a key
//     added later is compared without a change here) except perRankKeys,
//     plus the fault-injection setting (FailTaskEnv);
//   - an error a rank met before this point (an output directory rank 0
//     cannot write): the ranks stop together with the message of the
//     first rank that failed.
//
// and broadcasts one verdict: every rank returns the same error (agreed:
// rank 0 prints it, exit status 2), which names the ranks that differ from
// rank 0 and what differs. The same exchange carries each rank's cores and
// workers, for the one warning about workers sharing cores (Cores).
//
// Later decisions taken on one rank from its own state are agreed where
// they are taken: the memory check (checkMemory: each rank's memory, one
// verdict), task errors (runtime.Wait), the tile distributions computed
// from a cluster file (distribute compares the owner tables: the LP runs
// on every rank), the fault-injection check at the end (checkFailTask),
// and the checkpoint's stops and lock (checkpoint.go, stopping.go). Errors
// in the inputs are the same on every rank (the same bytes, the same
// checks): sameOnEveryRank marks them agreed.

// perRankKeys are the configuration keys the ranks may set differently:
// paths of inputs that rank 0 alone reads (data, locations, observations,
// at, theta_from), outputs only rank 0 writes (json, trace, plot, out,
// checkpoint) and what each rank has (workers: results do not depend on
// it; memory_limit: checked per rank). The paths of the other inputs
// (cluster, perfmodel, vecchia_sets), which rank 0 reads too, are
// compared: a rank without one would miss the read's broadcast.
var perRankKeys = map[string]bool{
	"data": true, "locations": true, "observations": true, "at": true, "theta_from": true,
	"json": true, "trace": true, "plot": true, "out": true, "checkpoint": true,
	"workers": true, "memory_limit": true,
}

// settingsOf returns the keys of cfg (a configuration struct of pkg/config)
// that the ranks must share, with their values as text: TOML names,
// embedded structs flattened, nested tables as "table.key", less
// perRankKeys and fields without a key (toml:"-").
func settingsOf(cfg any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "-" {
				continue
			}
			fv := v.Field(i)
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(prefix, fv)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if prefix == "" && perRankKeys[name] {
				continue
			}
			if f.Type.Kind() == reflect.Struct {
				walk(prefix+name+".", fv)
				continue
			}
			out[prefix+name] = fmt.Sprint(fv.Interface())
		}
	}
	v := reflect.ValueOf(cfg)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	walk("", v)
	out["env "+FailTaskEnv] = os.Getenv(FailTaskEnv)
	return out
}

// rankReport is what each rank sends to rank 0.
type rankReport struct {
	Err      string            `json:"err,omitempty"`
	Input    bool              `json:"input,omitempty"` // Err is bad input (exit 2)
	Settings map[string]string `json:"settings,omitempty"`
	Cores    Cores             `json:"cores"`
	Workers  int               `json:"workers"`
	Host     string            `json:"host,omitempty"` // os.Hostname, to find the ranks that share a node
}

// verdict is rank 0's answer, the same on every rank.
type verdict struct {
	Err   string `json:"err,omitempty"`
	Input bool   `json:"input,omitempty"`
	Warn  string `json:"warn,omitempty"`
}

// agreement is the first collective of a job (see above). Every rank makes
// it exactly once: check on the way to the work, or, for a rank that
// stops before, fail (finish does it for the error a job returns).
type agreement struct {
	w    comm.Comm
	cmd  string
	env  Env
	done bool
}

func newAgreement(env Env, cmd string) *agreement {
	return &agreement{w: env.comm(), cmd: cmd, env: env}
}

// finish, deferred with a pointer to the job's error, agrees on an error
// met before check: the ranks that passed wait in check for this one.
func (a *agreement) finish(err *error) {
	if !a.done && *err != nil {
		*err = a.fail(*err)
	}
}

// fail agrees on this rank's error (collective). On one rank it returns
// err itself.
func (a *agreement) fail(err error) error {
	a.done = true
	if a.w.Size() == 1 {
		return err
	}
	return a.exchange(rankReport{Err: err.Error(), Input: IsInput(err)}, err)
}

// shared is what the ranks of a job must share: its settings (settingsOf).
type shared struct {
	settings map[string]string
}

// check compares this rank's settings with rank 0's (collective) and warns, on rank 0, when some rank runs more workers than
// it has cores.
func (a *agreement) check(s shared, workers int) error {
	a.done = true
	host, _ := os.Hostname()
	rep := rankReport{Settings: s.settings, Cores: ReadCores(), Workers: workers, Host: host}
	return a.exchange(rep, nil)
}

func (a *agreement) exchange(rep rankReport, local error) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	all, err := a.w.Gather(0, b)
	if err != nil {
		return err
	}
	var v verdict
	if a.w.Rank() == 0 {
		reps := make([]rankReport, len(all))
		for r, p := range all {
			if err := json.Unmarshal(p, &reps[r]); err != nil {
				reps[r] = rankReport{Err: fmt.Sprintf("unreadable report: %v", err)}
			}
		}
		v = judge(a.cmd, reps, comm.Launched())
	}
	if b, err = json.Marshal(v); err != nil {
		return err
	}
	if b, err = a.w.Bcast(0, b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Warn != "" && a.w.Rank() == 0 {
		a.env.warnf("%s\n", v.Warn)
	}
	if v.Err == "" {
		return nil
	}
	ae := &agreedErr{msg: v.Err}
	if local != nil && local.Error() == v.Err {
		ae.err = local // this rank's own error: keep it in the chain
	}
	if v.Input {
		return &InputError{Err: ae, Agreed: true}
	}
	return ae
}

// agreedErr is an error every rank of a run returns alike (Agreed).
type agreedErr struct {
	msg string
	err error
}

func (e *agreedErr) Error() string { return e.msg }
func (e *agreedErr) Unwrap() error { return e.err }

// judge makes rank 0's verdict from every rank's report.
func judge(cmd string, reps []rankReport, launched bool) verdict {
	var v verdict
	v.Warn = coresWarning(reps, launched)
	var failed []int
	for r, p := range reps {
		if p.Err != "" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		f := failed[0]
		v.Input = reps[f].Input
		same := len(failed) == len(reps)
		for _, r := range failed {
			same = same && reps[r].Err == reps[f].Err
		}
		if same {
			v.Err = reps[f].Err
		} else {
			v.Err = fmt.Sprintf("rank %d: %s", f, reps[f].Err)
			if len(failed) > 1 {
				v.Err += fmt.Sprintf(" (ranks %s of %d stopped before the work)", rankList(failed), len(reps))
			}
		}
		return v
	}
	var parts []string
	if s := settingsDiff(reps); s != "" {
		parts = append(parts, s)
	}
	if len(parts) > 0 {
		v.Err = fmt.Sprintf("%s: %s; every rank must read the same input with the same settings", cmd, strings.Join(parts, "; "))
		v.Input = true
	}
	return v
}

// ranksWord returns "rank 1" or "ranks 1, 3".
func ranksWord(ranks []int) string {
	if len(ranks) == 1 {
		return fmt.Sprintf("rank %d", ranks[0])
	}
	return "ranks " + rankList(ranks)
}

// settingsDiff describes the ranks whose settings differ from rank 0's,
// with up to three keys: "rank 1 has other settings than rank 0 (nb: 400
// on rank 0, 320 on rank 1)".
func settingsDiff(reps []rankReport) string {
	ref := reps[0].Settings
	var ranks []int
	keys := map[string]int{} // key -> first rank that differs
	for r := 1; r < len(reps); r++ {
		s := reps[r].Settings
		differs := false
		for k, v := range ref {
			if w, ok := s[k]; !ok || w != v {
				differs = true
				if _, seen := keys[k]; !seen {
					keys[k] = r
				}
			}
		}
		for k := range s {
			if _, ok := ref[k]; !ok {
				differs = true
				if _, seen := keys[k]; !seen {
					keys[k] = r
				}
			}
		}
		if differs {
			ranks = append(ranks, r)
		}
	}
	if len(ranks) == 0 {
		return ""
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var detail []string
	for i, k := range names {
		if i == 3 {
			detail = append(detail, fmt.Sprintf("and %d more", len(names)-3))
			break
		}
		r := keys[k]
		detail = append(detail, fmt.Sprintf("%s: %s on rank 0, %s on rank %d", k, shown(ref, k), shown(reps[r].Settings, k), r))
	}
	verb := "has"
	if len(ranks) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("%s %s other settings than rank 0 (%s)", ranksWord(ranks), verb, strings.Join(detail, "; "))
}

func shown(s map[string]string, k string) string {
	v, ok := s[k]
	switch {
	case !ok:
		return "(no such key)"
	case v == "":
		return `""`
	}
	return v
}

// coresWarning is the one warning about ranks that run more workers than
// they have cores (oversubscribed), for the first such rank and naming
// the others.
func coresWarning(reps []rankReport, launched bool) string {
	var ranks []int
	for r, p := range reps {
		if p.Err == "" && p.Workers > p.Cores.N && p.Cores.N > 0 {
			ranks = append(ranks, r)
		}
	}
	if len(ranks) == 0 {
		return sharedCoresWarning(reps)
	}
	p := reps[ranks[0]]
	if !launched {
		ranks = nil
	}
	return oversubscribed(p.Cores, p.Workers, ranks, launched)
}

// agreeOwners checks that every rank computed the same tile distributions
// (collective): they are derived on each rank from the agreed settings, and
// for lp from a linear program whose floating-point solution could differ
// between unlike nodes. A difference is an agreed error naming the ranks.
func agreeOwners(w comm.Comm, nt int, owners ...tile.OwnerFunc) error {
	if w.Size() == 1 {
		return nil
	}
	h := sha256.New()
	var b [4]byte
	for _, own := range owners {
		if own == nil {
			h.Write([]byte{0xff})
			continue
		}
		for m := 0; m < nt; m++ {
			for c := 0; c <= m; c++ {
				binary.LittleEndian.PutUint32(b[:], uint32(own(m, c)))
				h.Write(b[:])
			}
		}
	}
	all, err := w.Gather(0, h.Sum(nil))
	if err != nil {
		return err
	}
	var msg []byte
	if w.Rank() == 0 {
		var ranks []int
		for r := 1; r < len(all); r++ {
			if string(all[r]) != string(all[0]) {
				ranks = append(ranks, r)
			}
		}
		if len(ranks) > 0 {
			msg = fmt.Appendf(nil, "%s computed other tile distributions than rank 0 (the owner tables' sha256 differs): the nodes disagree on the plan", ranksWord(ranks))
		}
	}
	if msg, err = w.Bcast(0, msg); err != nil {
		return err
	}
	if len(msg) > 0 {
		return &agreedErr{msg: string(msg)}
	}
	return nil
}

// fitAgreement returns what the ranks of a fit compare: its settings (the
// cluster file's groups need no comparison: rank 0 reads them for all).
func fitAgreement(cfg config.Fit) shared {
	return shared{settings: settingsOf(cfg)}
}

// sharedCoresWarning is the warning for ranks on one host whose workers
// together outnumber the CPUs of the union of their affinity masks: each
// rank has a core per worker, but the ranks' masks overlap (mpirun
// --oversubscribe, or socket binding with several ranks per socket), so
// the workers share cores. It is empty when no host has that, or when a
// rank's mask is unknown.
func sharedCoresWarning(reps []rankReport) string {
	byHost := map[string][]int{}
	var hosts []string
	for r, p := range reps {
		if p.Err != "" || p.Host == "" {
			return ""
		}
		if _, ok := byHost[p.Host]; !ok {
			hosts = append(hosts, p.Host)
		}
		byHost[p.Host] = append(byHost[p.Host], r)
	}
	for _, h := range hosts {
		ranks := byHost[h]
		if len(ranks) < 2 {
			continue
		}
		union := map[int]bool{}
		workers := 0
		var masks []string
		for _, r := range ranks {
			cpus, ok := parseCPUList(reps[r].Cores.Mask)
			if !ok {
				return ""
			}
			for _, c := range cpus {
				union[c] = true
			}
			workers += reps[r].Workers
			masks = append(masks, reps[r].Cores.Mask)
		}
		if workers <= len(union) {
			continue
		}
		s := "s"
		if len(union) == 1 {
			s = ""
		}
		return fmt.Sprintf("warning: ranks %s on %s run %d workers in all on %d core%s (their CPU affinity masks %s overlap): the workers share the cores and run slower; start fewer ranks per node, bind each rank to cores of its own (`mpirun --map-by slot:PE=N`), or run fewer --workers",
			rankList(ranks), h, workers, len(union), s, strings.Join(masks, " / "))
	}
	return ""
}

// parseCPUList reads a CPU list as cpuList writes it ("0-3,8"); false when
// it is empty or malformed.
func parseCPUList(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, false
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, true
}
