package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/internal/quote"
)

// Spec is a point in the classic catalogue's four axes (queue order,
// reservation depth, backfill order, estimate source) plus the options
// some points take. A registered alias names one Spec; the command line
// and specs write one as BASE:key=value,key=value, where BASE is an alias
// (or "classic", every axis at its default) and each key overrides one
// axis or option (ParseSpec; Keys lists them).
type Spec struct {
	Order    string  // queue order (Orders)
	Depth    int     // reservations: 0 none (filler), 1 the head (EASY), k the first k, DepthAll every job (conservative)
	Compress bool    // DepthAll: re-plan when a job ends early (Mu'alem–Feitelson compression)
	Backfill string  // backfill order (BackfillOrders); "none" starts only the head
	Estimate string  // estimate source (Estimates)
	Factor   float64 // the multiplier of estimate=double and perfect-double
	Consult  string  // settled (decide once per instant) or pyss (after every single event, arrivals first)

	Window    int     // lookahead: candidates looked at (0 = the whole queue, pyss); history predictors: jobs remembered
	Score     string  // lookahead: what the packing maximises: "area" (processors × prediction, pyss) or "procs" (processors started now, the LOS paper's utilization)
	Delay     float64 // greedy: the head's reservation is never before now + Delay × its estimate (pyss: 1)
	Threshold float64 // probabilistic: the largest predicted chance of delaying the head that still backfills
	Common    bool    // history predictors and probabilistic: one history for the whole system instead of one per user

	// maui: priority = WWait·wait + WSld·(wait+est)/est + WBypass·bypassed + WSize·procs
	WWait, WSld, WBypass, WSize float64
}

// DepthAll is Spec.Depth for conservative backfilling (every job holds a
// reservation).
const DepthAll = math.MaxInt32

// The values of each axis, in the order `gridsched policies` lists them.
var (
	Orders         = []string{"fcfs", "lcfs", "sjf", "ljf", "smallest", "largest", "area", "wfp3", "unicep", "f1", "f2", "f3", "f4", "slowdown", "maui", "edf"}
	BackfillOrders = []string{"none", "queue", "sjbf", "reverse", "greedy", "lookahead", "probabilistic"}
	Estimates      = []string{"request", "exact", "double", "perfect-double", "head-double", "tail-double", "shrink", "epp", "alpha", "last", "average", "walltime-pct"}
)

// AxisDoc describes every value of every axis (for `gridsched policies`
// and docs/policies.md).
var AxisDoc = map[string]string{
	"order=fcfs":              "arrival order",
	"order=lcfs":              "latest arrival first",
	"order=sjf":               "shortest estimate first",
	"order=ljf":               "longest estimate first",
	"order=smallest":          "fewest processors first",
	"order=largest":           "most processors first",
	"order=area":              "smallest processors × estimate first",
	"order=wfp3":              "largest (wait/estimate)³ × processors first (dynamic)",
	"order=unicep":            "largest wait / (log2(processors) × estimate) first (dynamic)",
	"order=f1":                "smallest log10(est)·n + 870·log10(submit) (Carastan-Santos & de Camargo 2017)",
	"order=f2":                "smallest √est·n + 25600·log10(submit)",
	"order=f3":                "smallest est·n + 6860000·log10(submit)",
	"order=f4":                "smallest est·√n + 530000·log10(submit)",
	"order=slowdown":          "largest expected slowdown (wait + est) / est first (dynamic)",
	"order=maui":              "largest Maui priority w_wait·wait + w_sld·slowdown + w_bypass·bypassed + w_size·procs first (dynamic)",
	"order=edf":               "earliest deadline first (jobs without one last)",
	"backfill=none":           "no backfilling: only the queue head starts",
	"backfill=queue":          "candidates in queue order",
	"backfill=sjbf":           "candidates by increasing estimate (shortest job backfilled first)",
	"backfill=reverse":        "candidates latest arrival first",
	"backfill=greedy":         "best of five candidate orders by jobs started (pyss's greedy; depth 1)",
	"backfill=lookahead":      "dynamic programme maximising the processors × estimate started now (Shmueli–Feitelson; depth 1)",
	"backfill=probabilistic":  "no reservation; a candidate starts if its predicted chance of delaying the head is at most threshold (Nissimov–Feitelson)",
	"estimate=request":        "the user's requested time",
	"estimate=exact":          "the actual run time (capped by the request)",
	"estimate=double":         "factor × the request",
	"estimate=perfect-double": "factor × the actual run time",
	"estimate=head-double":    "the request; a job started as the queue head is held for 2 × its request",
	"estimate=tail-double":    "the request; a backfilled job is tested and held with 2 × its request",
	"estimate=shrink":         "half the request (floor, at least 1); the full request once exceeded",
	"estimate=epp":            "EASY++: mean of the user's last two run times, capped by the request; the request once exceeded",
	"estimate=alpha":          "the request × the user's mean run time / request ratio; the request once exceeded",
	"estimate=last":           "the user's last run time, capped by the request (Alea); the request once exceeded",
	"estimate=average":        "mean of the user's last window run times (whole seconds), capped by the request (Alea); the request once exceeded",
	"estimate=walltime-pct":   "the request × the user's mean run time / request ratio over the last window jobs (whole seconds) (Alea); the request once exceeded",
}

// Keys are the keys a spec string may set, with what each takes.
var Keys = [][2]string{
	{"order", strings.Join(Orders, "|")},
	{"depth", "0|1|k|all"},
	{"compress", "yes|no (depth=all)"},
	{"backfill", strings.Join(BackfillOrders, "|")},
	{"estimate", strings.Join(Estimates, "|")},
	{"factor", "multiplier of double / perfect-double (default 2)"},
	{"consult", "settled|pyss"},
	{"window", "lookahead: jobs looked at (0 = all); last/average/walltime-pct: jobs remembered; probabilistic: jobs per histogram"},
	{"score", "lookahead: area (processors × estimate, pyss; default) or procs (processors started now, the LOS paper)"},
	{"delay", "greedy: head reserved no earlier than now + delay × its estimate (default 1)"},
	{"threshold", "probabilistic: largest chance of delaying the head (default 0.2)"},
	{"common", "yes|no: one history for all users (epp, alpha, last, average, walltime-pct, probabilistic)"},
	{"w_wait", "maui weight of the wait (default 1)"},
	{"w_sld", "maui weight of the expected slowdown"},
	{"w_bypass", "maui weight of the times a job was bypassed by a backfilled job"},
	{"w_size", "maui weight of the processors"},
}

// defaultSpec is "classic": EASY backfilling with every axis at its default.
func defaultSpec() Spec {
	return Spec{Order: "fcfs", Depth: 1, Compress: true, Backfill: "queue", Estimate: "request", Factor: 2,
		Consult: "settled", Score: "area", Delay: 1, Threshold: 0.2, WWait: 1}
}

// String writes s as the shortest spec string that ParseSpec reads back
// to s: "classic:" followed by every key that differs from the default.
func (s Spec) String() string {
	d := defaultSpec()
	var kv []string
	add := func(k, v string) { kv = append(kv, k+"="+v) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	if s.Order != d.Order {
		add("order", s.Order)
	}
	if s.Depth != d.Depth {
		if s.Depth == DepthAll {
			add("depth", "all")
		} else {
			add("depth", strconv.Itoa(s.Depth))
		}
	}
	if s.Compress != d.Compress {
		add("compress", yn(s.Compress))
	}
	if s.Backfill != d.Backfill {
		add("backfill", s.Backfill)
	}
	if s.Estimate != d.Estimate {
		add("estimate", s.Estimate)
	}
	if s.Factor != d.Factor {
		add("factor", f(s.Factor))
	}
	if s.Consult != d.Consult {
		add("consult", s.Consult)
	}
	if s.Window != d.Window {
		add("window", strconv.Itoa(s.Window))
	}
	if s.Score != d.Score {
		add("score", s.Score)
	}
	if s.Delay != d.Delay {
		add("delay", f(s.Delay))
	}
	if s.Threshold != d.Threshold {
		add("threshold", f(s.Threshold))
	}
	if s.Common != d.Common {
		add("common", yn(s.Common))
	}
	for _, w := range []struct {
		k    string
		v, d float64
	}{{"w_wait", s.WWait, d.WWait}, {"w_sld", s.WSld, d.WSld}, {"w_bypass", s.WBypass, d.WBypass}, {"w_size", s.WSize, d.WSize}} {
		if w.v != w.d {
			add(w.k, f(w.v))
		}
	}
	if len(kv) == 0 {
		return "classic"
	}
	return "classic:" + strings.Join(kv, ",")
}

// SpecError is a bad spec string: Pos is the byte offset (0-based) of
// the offending key or value in the string.
type SpecError struct {
	Spec string
	Pos  int
	Msg  string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("policy %s, column %d: %s", quote.Clip(e.Spec), e.Pos+1, e.Msg)
}

// ParseSpec reads BASE or BASE:key=value,... where BASE is a classic
// alias or "classic". Every key is checked: an unknown key, a value out of
// its axis, a repeated key or a combination the policy cannot run is an
// error naming its column.
func ParseSpec(str string) (Spec, error) {
	base, rest, hasKeys := strings.Cut(str, ":")
	var s Spec
	if base == "classic" {
		s = defaultSpec()
	} else if a, ok := aliases[base]; ok {
		s = a.spec
	} else {
		return Spec{}, &SpecError{str, 0, fmt.Sprintf("unknown base policy %s (classic or an alias: %s)", quote.Clip(base), strings.Join(AliasNames(), ", "))}
	}
	if !hasKeys {
		return s, nil
	}
	seen := map[string]bool{}
	pos := len(base) + 1
	if rest == "" {
		return Spec{}, &SpecError{str, pos, "no key=value after ':'"}
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return Spec{}, &SpecError{str, pos, fmt.Sprintf("%s is not key=value", quote.Clip(kv))}
		}
		vpos := pos + len(k) + 1
		if seen[k] {
			return Spec{}, &SpecError{str, pos, fmt.Sprintf("key %s given twice", quote.Clip(k))}
		}
		seen[k] = true
		if err := s.set(k, v); err != nil {
			p := vpos
			if strings.HasPrefix(err.Error(), "unknown key") {
				p = pos
			}
			return Spec{}, &SpecError{str, p, err.Error()}
		}
		pos += len(kv) + 1
	}
	if err := s.Check(); err != nil {
		return Spec{}, &SpecError{str, len(base) + 1, err.Error()}
	}
	return s, nil
}

// Set changes one axis or option by key, as a spec string's key=value
// does (for structured keys in experiment specs: policy.order: sjf).
func (s *Spec) Set(key, value string) error {
	if err := s.set(key, value); err != nil {
		return err
	}
	return s.Check()
}

func oneOf(v string, vals []string, what string) error {
	for _, x := range vals {
		if v == x {
			return nil
		}
	}
	return fmt.Errorf("%s %s: want one of %s", what, quote.Clip(v), strings.Join(vals, ", "))
}

func (s *Spec) set(k, v string) error {
	num := func(lo float64) (float64, error) {
		// Decimal only, as the workload readers take numbers: ParseFloat
		// also reads hex ("0x1p-2") and digit separators ("1_0").
		x, err := strconv.ParseFloat(v, 64)
		if t := strings.TrimLeft(v, "+-"); err != nil || strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") || strings.Contains(v, "_") || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%s %s: want a finite decimal number", k, quote.Clip(v))
		}
		if x < lo {
			return 0, fmt.Errorf("%s %s: want a number >= %g", k, quote.Clip(v), lo)
		}
		return x, nil
	}
	yes := func() (bool, error) {
		switch v {
		case "yes", "true":
			return true, nil
		case "no", "false":
			return false, nil
		}
		return false, fmt.Errorf("%s %s: want yes or no", k, quote.Clip(v))
	}
	var err error
	switch k {
	case "order":
		err = oneOf(v, Orders, "order")
		s.Order = v
	case "backfill":
		err = oneOf(v, BackfillOrders, "backfill")
		s.Backfill = v
	case "estimate":
		err = oneOf(v, Estimates, "estimate")
		s.Estimate = v
	case "consult":
		err = oneOf(v, []string{"settled", "pyss"}, "consult")
		s.Consult = v
	case "score":
		err = oneOf(v, []string{"area", "procs"}, "score")
		s.Score = v
	case "depth":
		if v == "all" {
			s.Depth = DepthAll
			return nil
		}
		n, e := strconv.Atoi(v)
		if e != nil || n < 0 || n >= DepthAll {
			return fmt.Errorf("depth %s: want 0, 1, a number of reservations, or all", quote.Clip(v))
		}
		s.Depth = n
	case "compress":
		s.Compress, err = yes()
	case "common":
		s.Common, err = yes()
	case "factor":
		s.Factor, err = num(0)
		if err == nil && s.Factor == 0 {
			err = fmt.Errorf("factor %s: want a number > 0", quote.Clip(v))
		}
	case "window":
		n, e := strconv.Atoi(v)
		if e != nil || n < 0 {
			return fmt.Errorf("window %s: want a whole number >= 0", quote.Clip(v))
		}
		s.Window = n
	case "delay":
		s.Delay, err = num(0)
	case "threshold":
		s.Threshold, err = num(0)
		if err == nil && s.Threshold > 1 {
			err = fmt.Errorf("threshold %s: want a number in [0, 1]", quote.Clip(v))
		}
	case "w_wait":
		s.WWait, err = num(math.Inf(-1))
	case "w_sld":
		s.WSld, err = num(math.Inf(-1))
	case "w_bypass":
		s.WBypass, err = num(math.Inf(-1))
	case "w_size":
		s.WSize, err = num(math.Inf(-1))
	default:
		var ks []string
		for _, kk := range Keys {
			ks = append(ks, kk[0])
		}
		return fmt.Errorf("unknown key %s (known: %s)", quote.Clip(k), strings.Join(ks, ", "))
	}
	return err
}

// Check reports a combination of axes the policy cannot run.
func (s Spec) Check() error {
	switch s.Backfill {
	case "greedy", "lookahead":
		if s.Depth != 1 {
			return fmt.Errorf("backfill=%s needs depth=1 (it plans around the head's reservation)", s.Backfill)
		}
	case "probabilistic":
		if s.Depth != 1 {
			return fmt.Errorf("backfill=probabilistic needs depth=1 (the head it protects; it holds no reservation)")
		}
	case "none":
		if s.Depth != 1 {
			return fmt.Errorf("backfill=none starts only the queue head: depth must stay 1")
		}
	}
	if s.Score != "area" && s.Backfill != "lookahead" {
		return fmt.Errorf("score=%s sets what backfill=lookahead maximises: not with backfill=%s", s.Score, s.Backfill)
	}
	if s.Depth == DepthAll && s.Backfill != "queue" {
		return fmt.Errorf("depth=all (conservative) plans every job in queue order: backfill must be queue")
	}
	if s.Depth == DepthAll && s.Order != "fcfs" {
		return fmt.Errorf("depth=all (conservative) reserves jobs as they arrive: order must be fcfs")
	}
	if s.Depth == DepthAll && (s.Estimate == "head-double" || s.Estimate == "tail-double") {
		return fmt.Errorf("estimate=%s needs a queue head: not with depth=all", s.Estimate)
	}
	if s.Depth == 0 && s.Estimate == "head-double" {
		return fmt.Errorf("estimate=head-double needs a queue head: not with depth=0")
	}
	if s.Order == "edf" && s.Depth == DepthAll {
		return fmt.Errorf("order=edf: not with depth=all")
	}
	return nil
}

// IsKey reports whether k is a key a spec string may set (Keys).
func IsKey(k string) bool {
	for _, kk := range Keys {
		if kk[0] == k {
			return true
		}
	}
	return false
}

// CheckKey checks one key=value alone (is the key known, is the value in
// its axis or range), whatever the other axes: for sweeps, whose values
// are checked one by one before any combination is built.
func CheckKey(k, v string) error {
	s := defaultSpec()
	return s.set(k, v)
}

// WithKeys returns base (a classic alias or "classic", with or without
// keys of its own) with every key=value of kvs added, checked as one spec
// string (ParseSpec): for experiment specs that sweep the axes as
// structured keys (grid: {policy.order: [fcfs, sjf]} with policies: [easy]
// runs easy:order=fcfs and easy:order=sjf).
func WithKeys(base string, kvs []string) (string, error) {
	if len(kvs) == 0 {
		return base, nil
	}
	name, _, hasKeys := strings.Cut(base, ":")
	if _, ok := aliases[name]; !ok && name != "classic" {
		return "", fmt.Errorf("policy %s is not a policy of the classic catalogue (classic or an alias: %s): policy.%s sets one of its axes", quote.Clip(base), strings.Join(AliasNames(), ", "), strings.SplitN(kvs[0], "=", 2)[0])
	}
	sep := ":"
	if hasKeys {
		sep = ","
	}
	out := base + sep + strings.Join(kvs, ",")
	if _, err := ParseSpec(out); err != nil {
		return "", err
	}
	return out, nil
}
