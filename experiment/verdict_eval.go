package experiment

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ClaimResult is a claim's verdict under each combination of readings
// (the paper's first) and their combination in one line.
type ClaimResult struct {
	Claim    *Claim
	Outcomes []Outcome
	Verdict  string // "agrees", or "agrees under A; disagrees under B"
}

// Outcome is a claim's result under one combination of readings.
type Outcome struct {
	Reading string // "u_update=all, metric=makespan"; "" without readings
	Class   string // the verdict class (Mixed: a by-claim whose values differ)
	Verdict string // the class, or a by-claim's distribution of classes
	Ours    string // what our runs show, in a few words
	Effect  string // the relative effects (subject − base)/|base|, with 95% CIs
	Test    string // the intervals used: paired t or Welch
	Details []string
}

// Mixed is the class of a by-claim whose values have different verdicts.
const Mixed = "mixed"

// Evaluate applies the verdict rules to claim c of spec s on data.
func Evaluate(s *Spec, c *Claim, data Data) ClaimResult {
	res := ClaimResult{Claim: c}
	configs := data.Configs()
	for _, combo := range readingCombos(s, c, configs) {
		var sub []DataConfig
		for _, cf := range combo.filter(configs) {
			if c.selects(cf.Params) {
				sub = append(sub, cf)
			}
		}
		d := data
		if strings.HasPrefix(combo.metric, "-") {
			d = negated{data}
		}
		var o Outcome
		switch {
		case len(sub) == 0:
			o = Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–"}
		case c.By != "":
			o = evalBy(s, c, sub, combo.metric, d)
		default:
			o = evalOne(s, c, sub, combo.metric, d)
		}
		o.Reading = combo.label
		res.Outcomes = append(res.Outcomes, o)
	}
	res.Verdict = combine(res.Outcomes)
	return res
}

// negated answers for a metric named with a leading minus ("-cpe") from
// the metric itself, negated: the means and the differences change
// sign, the deviations do not.
type negated struct{ Data }

func (n negated) Stat(cfg int, metric string) Stat {
	name, neg := strings.CutPrefix(metric, "-")
	st := n.Data.Stat(cfg, name)
	if neg {
		st.Mean = 0 - st.Mean // 0 − x: never −0
	}
	return st
}

func (n negated) Pair(subject, base int, metric string) PairStat {
	name, neg := strings.CutPrefix(metric, "-")
	ps := n.Data.Pair(subject, base, name)
	if neg {
		ps.Mean, ps.BaseMean, ps.DiffMean = 0-ps.Mean, 0-ps.BaseMean, 0-ps.DiffMean
	}
	return ps
}

// combo is one combination of reading values (and a metric reading).
type combo struct {
	label  string
	metric string
	where  map[string]string
}

func (cb combo) filter(configs []DataConfig) []DataConfig {
	var out []DataConfig
	for _, cf := range configs {
		ok := true
		for k, v := range cb.where {
			if !sameValue(cf.Params[k], v) {
				ok = false
			}
		}
		if ok {
			out = append(out, cf)
		}
	}
	return out
}

// readingCombos are the combinations of the claim's readings: the
// spec's readings that the claim does not compare, trend along or split
// by, and that the runs vary (each value of the full sweep, the paper's
// first: a value not run at this label gives "not run at this scale"),
// times the claim's metric readings.
func readingCombos(s *Spec, c *Claim, configs []DataConfig) []combo {
	type axis struct {
		name   string
		param  string // "" for the metric axis
		values []string
	}
	var axes []axis
	ms := c.metrics()
	if len(ms) > 1 {
		axes = append(axes, axis{name: "metric", values: ms})
	}
	axisOf := onAxis(s)
	for _, r := range s.Readings {
		if c.Param != "" && zipPartners(s, c.Param)[r.Param] || r.Param == c.By || axisOf[r.Param] && (c.kind() == "trend" || c.Expect == "better-when-ample") {
			continue
		}
		present := false
		for _, cf := range configs {
			_, ok := cf.Params[r.Param]
			present = present || ok
		}
		if !present {
			continue
		}
		vals, _ := s.sweptValues(r.Param)
		vals = append([]string(nil), vals...)
		if r.Paper != nil {
			p := FormatValue(r.Paper)
			sortedByFirst(vals, []string{p})
		}
		axes = append(axes, axis{name: lastPart(r.Param), param: r.Param, values: vals})
	}
	out := []combo{{metric: ms[0], where: map[string]string{}}}
	for _, ax := range axes {
		var next []combo
		for _, cb := range out {
			for _, v := range ax.values {
				n := combo{metric: cb.metric, where: map[string]string{}}
				for k, w := range cb.where {
					n.where[k] = w
				}
				if ax.param == "" {
					n.metric = v
				} else {
					n.where[ax.param] = v
				}
				term := ax.name + "=" + shortName(v)
				n.label = strings.TrimPrefix(cb.label+", "+term, ", ")
				next = append(next, n)
			}
		}
		out = next
	}
	kept := out[:0]
	for _, cb := range out {
		if slices.ContainsFunc(c.whereChoices(), func(w map[string]string) bool { return s.sweepable(mergeWhere(cb.where, w)) }) {
			kept = append(kept, cb)
		}
	}
	return kept
}

// whereChoices are the single-valued settings of the claim's where (one
// empty setting without a where): a reading that no choice can be swept
// with (the monitor of a baseline that migrates nothing) is no reading
// of the claim.
func (c *Claim) whereChoices() []map[string]string {
	out := []map[string]string{{}}
	for _, k := range sortedKeys(c.Where) {
		var next []map[string]string
		for _, w := range out {
			for _, v := range whereValues(c.Where[k]) {
				n := mergeWhere(w, map[string]string{k: v})
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

func mergeWhere(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// sweepable reports whether some sweep of the spec can give a
// configuration with the values of where: every two of its parameters
// that a sweep varies together (both in its grid, one in its grid and
// one in its zip, or both in its zip at one index) must be so in one
// sweep that has these two values. A combination of zipped readings
// the zip never pairs (exp3's duration_at 0 with widen move-start) is
// no reading; two parameters no sweep varies together are not checked.
func (s *Spec) sweepable(where map[string]string) bool {
	keys := sortedKeys(where)
	has := func(vs []any, v string) int {
		for i, x := range vs {
			if sameValue(FormatValue(x), v) {
				return i
			}
		}
		return -1
	}
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			mentioned, ok := false, false
			for _, sw := range s.sweeps() {
				ga, gb, za, zb := sw.Grid[a], sw.Grid[b], sw.Zip[a], sw.Zip[b]
				if (ga == nil && za == nil) || (gb == nil && zb == nil) {
					continue
				}
				mentioned = true
				switch {
				case za != nil && zb != nil:
					for k := range za {
						ok = ok || k < len(zb) && sameValue(FormatValue(za[k]), where[a]) && sameValue(FormatValue(zb[k]), where[b])
					}
				default:
					ok = ok || has(append(ga, za...), where[a]) >= 0 && has(append(gb, zb...), where[b]) >= 0
				}
			}
			if mentioned && !ok {
				return false
			}
		}
	}
	return true
}

// lastPart is a dotted parameter's last name: instability.u_update is
// u_update.
func lastPart(k string) string {
	if i := strings.LastIndex(k, "."); i >= 0 {
		return k[i+1:]
	}
	return k
}

// evalBy evaluates the claim per value of its By parameter and gives
// the distribution of the verdicts.
func evalBy(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	vals, _ := s.sweptValues(c.By)
	counts := map[string]int{}
	var classes []string
	var ours, effects, tests, details []string
	n := 0
	for _, v := range vals {
		var sub []DataConfig
		for _, cf := range configs {
			if sameValue(cf.Params[c.By], v) {
				sub = append(sub, cf)
			}
		}
		if len(sub) == 0 {
			continue
		}
		o := evalOne(s, c, sub, metric, data)
		n++
		if counts[o.Class] == 0 {
			classes = append(classes, o.Class)
		}
		counts[o.Class]++
		name := lastPart(c.By) + "=" + shortName(v)
		ours = append(ours, name+": "+o.Ours)
		effects = append(effects, name+": "+o.Effect)
		tests = append(tests, o.Test)
		details = append(details, name+": "+o.Class)
		for _, d := range o.Details {
			details = append(details, "  "+d)
		}
	}
	if n == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–"}
	}
	o := Outcome{Ours: strings.Join(ours, "; "), Effect: strings.Join(effects, "; "), Test: joinTests(tests), Details: details}
	if len(classes) == 1 {
		o.Class = classes[0]
		o.Verdict = fmt.Sprintf("%s (%d of %d %s values)", classes[0], n, n, lastPart(c.By))
		return o
	}
	// The distribution, most frequent first (ties in the classes' order).
	sort.SliceStable(classes, func(i, j int) bool { return counts[classes[i]] > counts[classes[j]] })
	parts := make([]string, len(classes))
	for i, cl := range classes {
		parts[i] = fmt.Sprintf("%s in %d", cl, counts[cl])
		if i == 0 {
			parts[i] += fmt.Sprintf(" of %d %s values", n, lastPart(c.By))
		}
	}
	o.Class = Mixed
	o.Verdict = strings.Join(parts, ", ")
	return o
}

// evalOne evaluates the claim on configs (one reading, one by value).
func evalOne(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	switch c.kind() {
	case "bound":
		return evalBound(c, configs, metric, data)
	case "trend":
		return evalTrend(s, c, configs, metric, data)
	}
	return evalCompare(s, c, configs, metric, data)
}

// Point classes.
const (
	win          = "win"
	loss         = "loss"
	tie          = "tie"
	negligible   = "negligible"
	undetermined = "undetermined"
	zeroBase     = "base 0"
	noCI         = "no CI"
	within       = "within the floor"
	differs      = "differs"
)

// pointWords says what a point's class means, for the detail lines.
var pointWords = map[string]string{
	negligible:   "negligible (its CI within the floor)",
	undetermined: "size undetermined (beyond 0, its CI straddles the floor)",
	noCI:         "no CI (one replication)",
	zeroBase:     "base 0: no relative size (abs_floor judges it)",
}

func words(class string) string {
	if w, ok := pointWords[class]; ok {
		return w
	}
	return class
}

// floors are a claim's practical-significance floors: relative (of the
// base, or of the subject where the base is 0) and absolute (in the
// metric's unit).
type floors struct{ rel, abs float64 }

func (c *Claim) floors() floors {
	f := floors{rel: c.floor()}
	if c.AbsFloor != nil {
		f.abs = *c.AbsFloor
	}
	return f
}

// String describes the floors: "±1.0%", "±1.0% or ±0.5".
func (f floors) String() string {
	s := "±" + pct(f.rel)
	if f.abs > 0 {
		s += " or ±" + num(f.abs)
	}
	return s
}

// threshold is the floor in the metric's unit at x: the larger of the
// relative floor times |base| and the absolute floor (only the absolute
// floor where the base is 0).
func (f floors) threshold(x diff) float64 {
	return math.Max(f.rel*math.Abs(x.b), f.abs)
}

// classify classifies a difference in the direction want (+1: the
// subject should be higher, −1: lower). A tie when the 95% CI contains
// 0; a win or a loss only when the whole CI lies beyond the floor; the
// CI within the floor is negligible; a CI that excludes 0 but straddles
// the floor is undetermined (never a win or a loss).
func classify(x diff, f floors, want int) string {
	if math.IsNaN(x.h) {
		return noCI
	}
	thr := f.threshold(x)
	o := float64(want) * x.d
	switch {
	case math.Abs(o) <= x.h:
		return tie
	case x.b == 0 && f.abs == 0:
		return zeroBase
	case math.Abs(o)+x.h < thr:
		return negligible
	case math.Abs(o)-x.h < thr:
		return undetermined
	case o > 0:
		return win
	}
	return loss
}

// classifySame classifies a difference for a claim of no difference:
// within the floor (its whole CI), differs (its whole CI beyond the
// floor), or undetermined (a tie).
func classifySame(x diff, f floors) string {
	if math.IsNaN(x.h) {
		return noCI
	}
	switch cl := classify(x, f, 1); {
	case math.Abs(x.d)+x.h <= f.threshold(x):
		return within
	case cl == win || cl == loss:
		return differs
	}
	return tie
}

// point is one comparison of the claim.
type point struct {
	series  string // the setting of the parameters other than x (and the compared one)
	setting string // the setting subject and base share
	x       string
	d       diff
	class   string
	judged  bool
	context string // why a point shown is not judged ("" when judged)
	subj    string // the subject and the base, with the partners that move with the compared value
	base    string
}

// keyExcept names a configuration by its parameters outside skip.
func keyExcept(p map[string]string, skip map[string]bool) string {
	var parts []string
	for _, k := range sortedKeys(p) {
		if !skip[k] {
			parts = append(parts, shortName(k)+"="+shortName(p[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// movingPartners are the zip partners of a comparison's parameter that
// move with the compared value: no value they take where the parameter
// is the claim's better value is also one they take where it is its
// worse value (policy zipped with a migration rule, one per policy).
// Every other partner, and every parameter outside the zip, must be
// equal in the subject and its base: a zip that repeats the compared
// value (q 0.25 with λ 1.75 and 2.5, q 0.75 with λ 2.5 and 4) pairs
// each subject with the base of its own q.
func movingPartners(zip map[string][]any, c *Claim) map[string]bool {
	out := map[string]bool{}
	vals := zip[c.Param]
	if vals == nil {
		return out
	}
	for k, ks := range zip {
		if k == c.Param {
			continue
		}
		atBetter, atWorse := map[string]bool{}, map[string]bool{}
		for i, v := range vals {
			if i >= len(ks) {
				break
			}
			switch f := FormatValue(v); {
			case sameValue(f, c.Better):
				atBetter[FormatValue(ks[i])] = true
			case sameValue(f, c.Worse):
				atWorse[FormatValue(ks[i])] = true
			}
		}
		common := false
		for v := range atBetter {
			for w := range atWorse {
				common = common || sameValue(v, w)
			}
		}
		if !common {
			out[k] = true
		}
	}
	return out
}

// ambiguousPairing describes a zip position of the claim's better value
// with more than one base configuration under movingPartners' matching
// ("" when every subject has at most one base).
func ambiguousPairing(zip map[string][]any, c *Claim) string {
	vals := zip[c.Param]
	moving := movingPartners(zip, c)
	for i, v := range vals {
		if !sameValue(FormatValue(v), c.Better) {
			continue
		}
		var cands []string
		for j, w := range vals {
			if !sameValue(FormatValue(w), c.Worse) {
				continue
			}
			match := true
			for k, ks := range zip {
				if k != c.Param && !moving[k] && (i >= len(ks) || j >= len(ks) || !sameValue(FormatValue(ks[i]), FormatValue(ks[j]))) {
					match = false
				}
			}
			if match {
				cands = append(cands, zipRow(zip, j))
			}
		}
		if len(cands) > 1 {
			return fmt.Sprintf("the zip row %s has %d rows with %s=%s to compare with (%s): zip another parameter that tells them apart, or split the claim",
				zipRow(zip, i), len(cands), shortName(c.Param), c.Worse, strings.Join(cands, "; "))
		}
	}
	return ""
}

// zipRow names row i of a zip: "q=0.25, lambda=2.5".
func zipRow(zip map[string][]any, i int) string {
	var parts []string
	for _, k := range sortedKeys(zip) {
		if i < len(zip[k]) {
			parts = append(parts, shortName(k)+"="+FormatValue(zip[k][i]))
		}
	}
	return strings.Join(parts, ", ")
}

// valueWith names a compared value with the partners that move with it:
// "cloud-ljfs (migration=first-fit)".
func valueWith(v string, p map[string]string, moving map[string]bool) string {
	var parts []string
	for _, k := range sortedKeys(moving) {
		if w, ok := p[k]; ok {
			parts = append(parts, shortName(k)+"="+shortName(w))
		}
	}
	if len(parts) == 0 {
		return shortName(v)
	}
	return shortName(v) + " (" + strings.Join(parts, ", ") + ")"
}

func evalCompare(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	moving := movingPartners(s.Zip, c)
	pairSkip := map[string]bool{c.Param: true}
	for k := range moving {
		pairSkip[k] = true
	}
	seriesSkip := map[string]bool{}
	for k, on := range onAxis(s) {
		seriesSkip[k] = on
	}
	for k := range pairSkip {
		seriesSkip[k] = true
	}
	x := xOf(s)
	base := map[string][]DataConfig{}
	for _, cf := range configs {
		if sameValue(cf.Params[c.Param], c.Worse) {
			k := keyExcept(cf.Params, pairSkip)
			base[k] = append(base[k], cf)
		}
	}
	want := 1
	if c.LowerIsBetter {
		want = -1
	}
	fl := c.floors()
	var pts []point
	var ambiguous []string
	for _, cf := range configs {
		if !sameValue(cf.Params[c.Param], c.Better) {
			continue
		}
		key := keyExcept(cf.Params, pairSkip)
		bs := base[key]
		if len(bs) > 1 {
			ambiguous = append(ambiguous, orDefault(key, "every setting"))
			continue
		}
		if len(bs) == 0 {
			continue
		}
		b := bs[0]
		d := compareAt(data, cf.Index, b.Index, metric)
		if !d.present {
			continue
		}
		p := point{series: keyExcept(cf.Params, seriesSkip), setting: key, x: cf.Params[x], d: d, judged: true,
			subj: valueWith(c.Better, cf.Params, moving), base: valueWith(c.Worse, b.Params, moving)}
		if c.AtOnly && !sameValue(p.x, FormatValue(c.At)) {
			p.judged, p.context = false, "context: the claim is about "+shortName(x)+" = "+FormatValue(c.At)
		}
		if c.Expect == "same" {
			p.class = classifySame(d, fl)
		} else {
			p.class = classify(d, fl, want)
		}
		pts = append(pts, p)
	}
	o := Outcome{}
	var judged []point
	for _, p := range pts {
		line := fmt.Sprintf("%s: %s %s vs %s %s, %s (%s): %s", orDefault(p.setting, "every setting"),
			p.subj, num(p.d.a), p.base, num(p.d.b), pctCI(p.d), p.d.test(), words(p.class))
		if !p.judged {
			line += " (" + p.context + ")"
		} else {
			judged = append(judged, p)
		}
		o.Details = append(o.Details, line)
	}
	if len(ambiguous) > 0 {
		o.Details = append(o.Details, fmt.Sprintf("not compared (more than one base configuration): %s", strings.Join(ambiguous, "; ")))
	}
	if len(judged) == 0 {
		out := Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run of both values", Effect: "–", Test: "–", Details: o.Details}
		if c.AtOnly && len(pts) > 0 {
			out.Ours = "no run at the claim's point " + shortName(x) + " = " + FormatValue(c.At)
		}
		return out
	}
	o.Test = testsOf(judged)
	count := map[string]int{}
	var effs []float64
	for _, p := range judged {
		count[p.class]++
		e, _ := p.d.rel()
		effs = append(effs, e)
	}
	o.Effect = effectRange(effs, judged)
	n := len(judged)
	where := fmt.Sprintf("%d %s", n, plural(n, "point", "points"))
	if c.AtOnly {
		where += " at " + shortName(x) + " = " + FormatValue(c.At)
	}
	if k := len(pts) - n; k > 0 {
		where += fmt.Sprintf(" (%d more shown, not judged)", k)
	}
	if c.Expect == "same" {
		o.Ours = fmt.Sprintf("%s: %d within %s, %d differ, %d undetermined", where, count[within], fl, count[differs], count[tie])
		o.Class = sameVerdict(count, n)
		o.Verdict = o.Class
		if o.Class == Disagrees {
			o.Verdict += fmt.Sprintf(" (%d of %d %s differ)", count[differs], n, plural(n, "point", "points"))
		}
		return o
	}
	o.Ours = fmt.Sprintf("%s: %d %s, %d %s, %d %s", where, count[win], plural(count[win], "win", "wins"), count[tie], plural(count[tie], "tie", "ties"), count[loss], plural(count[loss], "loss", "losses"))
	if count[negligible] > 0 {
		o.Ours += fmt.Sprintf(", %d negligible (CI within %s)", count[negligible], fl)
	}
	if count[undetermined] > 0 {
		o.Ours += fmt.Sprintf(", %d undetermined (CI straddles %s)", count[undetermined], fl)
	}
	if count[zeroBase] > 0 {
		o.Ours += fmt.Sprintf(", %d against a base of 0 (no relative size; set abs_floor)", count[zeroBase])
	}
	if count[noCI] > 0 {
		o.Ours += fmt.Sprintf(", %d without a CI (one replication)", count[noCI])
	}
	ratios, sized := c.ratiosOf(judged)
	switch {
	case c.Ratio > 0 && len(ratios) > 0:
		o.Ours += fmt.Sprintf("; ratio %s (paper %s)", rangeOf(ratios, "%.3g"), strconv.FormatFloat(c.Ratio, 'g', -1, 64))
	case c.Ratio > 0 && c.At != nil && !c.AtOnly:
		o.Ours += "; no run at the paper's point: its ratio not judged"
	case c.Ratio > 0:
		o.Ours += "; no ratio (a base of 0 or a negative mean): its size not judged"
	}
	wins, losses := count[win], count[loss]
	suffix := ""
	switch {
	case count[noCI] > 0:
		o.Class = NotEnough
	case c.Expect == "better-when-ample":
		o.Class, suffix = ampleVerdict(judged, wins, losses, count[negligible])
	case losses > 0:
		o.Class = Disagrees
		suffix = fmt.Sprintf(" (%d %s of %d %s)", losses, plural(losses, "loss", "losses"), n, plural(n, "point", "points"))
	case wins == n:
		o.Class = Agrees
	case wins > 0:
		o.Class = Partly
	case count[negligible] == n:
		o.Class = Negligible
	default:
		o.Class = NoDifference
		if u := count[undetermined]; u > 0 {
			// Not "no difference" without a word: these points differ
			// from 0, by a size the floor cannot decide.
			suffix = fmt.Sprintf(" (but %d of %d %s beyond 0, by a size its CI leaves undetermined)", u, n, plural(n, "point", "points"))
		}
	}
	if o.Class == Agrees {
		if !sized {
			o.Class = DifferentSize
		} else if w := c.worded(effs); w != "" {
			o.Class = DifferentSize
			o.Ours += "; " + w
		}
	}
	o.Verdict = o.Class + suffix
	return o
}

// seriesTerm splits a series term: "drrm" is policy=drrm.
func seriesTerm(term string) (string, string) {
	k, v, eq := strings.Cut(term, "=")
	if !eq {
		return "policy", term
	}
	return k, v
}

// sameVerdict is the verdict of a claim of no difference over n points
// (or series) classified by classifySame.
func sameVerdict(count map[string]int, n int) string {
	switch {
	case count[noCI] > 0:
		return NotEnough
	case count[differs] > 0:
		return Disagrees
	case count[within] == n:
		return Agrees
	}
	return NoDifference
}

// ampleVerdict: every series reads losses or ties (or anything short of
// a win) while resources are scarce, then only wins to the end of the
// axis, (L|T)* W+: agrees. A series that does not win at the ample end
// (it ends in a tie or a loss), or no win at all, disagrees: the claim
// is about the ample end. Otherwise (every series wins at its end, some
// won earlier and lost or tied between) partly. It returns the class and
// the verdict's count of the series that decide it.
func ampleVerdict(pts []point, wins, losses, negl int) (string, string) {
	var order []string
	pattern := map[string][]point{}
	for _, p := range pts {
		if _, ok := pattern[p.series]; !ok {
			order = append(order, p.series)
		}
		pattern[p.series] = append(pattern[p.series], p)
	}
	good, noWinAtEnd := 0, 0
	for _, k := range order {
		ps := pattern[k]
		sortByX(ps)
		var b strings.Builder
		for _, p := range ps {
			switch p.class {
			case win:
				b.WriteByte('W')
			case loss:
				b.WriteByte('L')
			default:
				b.WriteByte('T')
			}
		}
		pat := b.String()
		if t := strings.TrimLeft(pat, "LT"); t != "" && strings.Trim(t, "W") == "" {
			good++
		}
		if !strings.HasSuffix(pat, "W") {
			noWinAtEnd++
		}
	}
	n := len(order)
	switch {
	case wins+losses == 0 && negl == len(pts):
		return Negligible, ""
	case wins+losses == 0:
		return NoDifference, ""
	case good == n:
		return Agrees, ""
	case noWinAtEnd > 0:
		return Disagrees, fmt.Sprintf(" (%d of %d series %s not win at the ample end)", noWinAtEnd, n, plural(noWinAtEnd, "does", "do"))
	}
	return Partly, ""
}

// sortByX orders points by x, numerically when every x is a number.
func sortByX(ps []point) {
	numeric := true
	for _, p := range ps {
		numeric = numeric && !math.IsNaN(parseNum(p.x))
	}
	if numeric {
		sort.SliceStable(ps, func(i, j int) bool { return parseNum(ps[i].x) < parseNum(ps[j].x) })
	}
}

// ratiosOf are our subject/base ratios at the judged points where the
// paper gives its ratio (x = At, else every point), and whether each is
// of the paper's size (the size rule; true when the claim gives no
// ratio).
func (c *Claim) ratiosOf(pts []point) ([]float64, bool) {
	var out []float64
	ok := true
	for _, p := range pts {
		if c.At != nil && !sameValue(p.x, FormatValue(c.At)) {
			continue
		}
		r := p.d.ratio()
		if math.IsNaN(r) {
			continue
		}
		out = append(out, r)
		if c.Ratio > 0 && !SameSize(r, c.Ratio) {
			ok = false
		}
	}
	return out, ok
}

// SameSize is the size rule: our ratio r (subject/base, or last/first)
// is of the paper's size R when ln r / ln R lies within [1/SizeFactor,
// SizeFactor]: what remains is compared on a log scale, so −99.9%
// (r = 0.001) against the paper's −66.7% (R = 0.333) is a different
// size; nothing left (r = 0) is the paper's size only if the paper keeps
// nothing either. R = 1 (no change) or a negative ratio cannot be judged:
// true.
func SameSize(r, R float64) bool {
	switch {
	case !(r >= 0) || !(R >= 0) || R == 1:
		return true
	case r == 0 || R == 0:
		return r == R // nothing remains against something: never the same size
	}
	q := math.Log(r) / math.Log(R)
	return q >= 1/SizeFactor && q <= SizeFactor
}

// worded checks the size the paper's words give (Claim.Size) against
// the mean relative effect: "" when it fits, else why not.
func (c *Claim) worded(effs []float64) string {
	if c.Size == "" {
		return ""
	}
	m, n := 0.0, 0
	for _, e := range effs {
		if !math.IsNaN(e) {
			m += math.Abs(e)
			n++
		}
	}
	if n == 0 {
		return ""
	}
	m /= float64(n)
	if (c.Size == "slight" && m > SlightEffect) || (c.Size == "large" && m < LargeEffect) {
		return fmt.Sprintf("the paper says %s, ours %.0f%% on average", c.Size, 100*m)
	}
	return ""
}

// seriesResult is one series of a trend: its first and last x in the
// claim's range, the change between them (for a flat trend: the largest
// change from the first), and the steps against the trend.
type seriesResult struct {
	name        string
	judged      bool
	why         string // why a series shown is not judged
	first, last string
	d           diff
	class       string
	steps       int      // steps between neighbouring x values in the range
	backs       []string // the steps against the trend beyond their CIs and the floor
	whole       bool     // the series spans the claim's whole range (its size can be judged)
	context     []string // changes outside the claim's range, shown
}

// xOrder places x values along the axis: numerically when every value
// is a number, else in the sweep's order.
type xOrder struct {
	numeric bool
	xs      []string
}

func newXOrder(s *Spec, configs []DataConfig) xOrder {
	x := xOf(s)
	xs, _ := s.sweptValues(x)
	o := xOrder{numeric: true, xs: xs}
	for _, v := range xs {
		o.numeric = o.numeric && !math.IsNaN(parseNum(v))
	}
	for _, cf := range configs {
		o.numeric = o.numeric && !math.IsNaN(parseNum(cf.Params[x]))
	}
	return o
}

func (o xOrder) pos(v string) float64 {
	if o.numeric {
		return parseNum(v)
	}
	for i, w := range o.xs {
		if sameValue(v, w) {
			return float64(i)
		}
	}
	return float64(len(o.xs))
}

// bounds are the ends of the claim's range along x: from and to, else
// the first and last x of every sweep of the spec.
func (o xOrder) bounds(c *Claim) (string, string) {
	lo, hi := "", ""
	for _, v := range o.xs {
		if lo == "" || o.pos(v) < o.pos(lo) {
			lo = v
		}
		if hi == "" || o.pos(v) > o.pos(hi) {
			hi = v
		}
	}
	if c.From != nil {
		lo = FormatValue(c.From)
	}
	if c.To != nil {
		hi = FormatValue(c.To)
	}
	return lo, hi
}

func evalTrend(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	x := xOf(s)
	skip := onAxis(s)
	ord := newXOrder(s, configs)
	var have []DataConfig
	for _, cf := range configs {
		if data.Stat(cf.Index, metric).N > 0 {
			have = append(have, cf)
		}
	}
	groups, order := groupBy(have, skip)
	// A parameter riding on the axis that repeats an x value within a
	// series (λ zipped with a second rate) would make two points at one
	// x: then every parameter but x tells the series apart.
	if repeatsX(groups, x) {
		skip = map[string]bool{x: true}
		groups, order = groupBy(have, skip)
	}
	want := 1
	if c.Trend == "decreasing" {
		want = -1
	}
	fl := c.floors()
	lo, hi := ord.bounds(c)
	var series []seriesResult
	for _, k := range order {
		g := groups[k]
		sort.SliceStable(g, func(i, j int) bool { return ord.pos(g[i].Params[x]) < ord.pos(g[j].Params[x]) })
		var in []DataConfig
		for _, cf := range g {
			if p := ord.pos(cf.Params[x]); p >= ord.pos(lo) && p <= ord.pos(hi) {
				in = append(in, cf)
			}
		}
		if len(in) < 2 {
			continue
		}
		first, last := in[0], in[len(in)-1]
		sr := seriesResult{name: seriesName(first.Params, skip), judged: true, first: first.Params[x], last: last.Params[x],
			whole: sameValue(first.Params[x], lo) && sameValue(last.Params[x], hi)}
		if !c.judges(first.Params) {
			sr.judged, sr.why = false, "not judged"
		}
		// The changes outside the range are shown (the paper's "a small
		// rise from 5 to 10" before a claim from 10).
		if g[0].Index != first.Index {
			d := compareAt(data, first.Index, g[0].Index, metric)
			sr.context = append(sr.context, fmt.Sprintf("%s→%s (before the claim's range): %s", shortName(g[0].Params[x]), shortName(first.Params[x]), pctCI(d)))
		}
		if end := g[len(g)-1]; end.Index != last.Index {
			d := compareAt(data, end.Index, last.Index, metric)
			sr.context = append(sr.context, fmt.Sprintf("%s→%s (after the claim's range): %s", shortName(last.Params[x]), shortName(end.Params[x]), pctCI(d)))
		}
		if c.Trend == "flat" {
			// Every point against the first: the fluctuation over the whole
			// range, not only its ends. The point that decides is shown.
			sr.class = within
			worst := -1.0
			for i := 1; i < len(in); i++ {
				d := compareAt(data, in[i].Index, first.Index, metric)
				cl := classifySame(d, fl)
				// The point shown: the first that differs, else the largest
				// change.
				e, _ := d.rel()
				rank := math.Abs(e)
				if math.IsNaN(rank) || cl == differs {
					rank = math.Inf(1)
				}
				if rank > worst {
					worst, sr.d, sr.last = rank, d, in[i].Params[x]
				}
				switch {
				case cl == noCI || sr.class == noCI:
					sr.class = noCI
				case cl == differs || sr.class == differs:
					sr.class = differs
				case cl == tie:
					sr.class = tie
				}
			}
		} else {
			sr.d = compareAt(data, last.Index, first.Index, metric)
			sr.class = classify(sr.d, fl, want)
			for i := 1; i < len(in); i++ {
				sr.steps++
				d := compareAt(data, in[i].Index, in[i-1].Index, metric)
				if classify(d, fl, want) == loss {
					sr.backs = append(sr.backs, fmt.Sprintf("%s→%s %s", shortName(in[i-1].Params[x]), shortName(in[i].Params[x]), pctCI(d)))
				}
			}
		}
		series = append(series, sr)
	}
	o := Outcome{}
	count := map[string]int{}
	names := map[string][]string{}
	var judged []seriesResult
	var effs []float64
	var tests, judgedNames []string
	for _, sr := range series {
		e, _ := sr.d.rel()
		mark := ""
		if !sr.judged {
			mark = " (" + sr.why + ")"
		}
		span := shortName(sr.first) + "→" + shortName(sr.last)
		if c.Trend == "flat" {
			span += " (the first change beyond the floor, from " + shortName(sr.first) + ")"
		}
		line := fmt.Sprintf("%s%s: %s: %s → %s, %s (%s): %s", sr.name, mark, span, num(sr.d.b), num(sr.d.a), pctCI(sr.d), sr.d.test(), trendState(c.Trend, sr))
		if len(sr.context) > 0 {
			line += "; shown, not judged: " + strings.Join(sr.context, "; ")
		}
		o.Details = append(o.Details, line)
		if !sr.judged {
			continue
		}
		judged = append(judged, sr)
		judgedNames = append(judgedNames, sr.name)
		count[sr.class]++
		names[sr.class] = append(names[sr.class], sr.name)
		if len(sr.backs) > 0 && sr.class == win {
			count["back"]++
			names["back"] = append(names["back"], fmt.Sprintf("%s (%d of %d steps)", sr.name, len(sr.backs), sr.steps))
		}
		effs = append(effs, e)
		tests = append(tests, sr.d.test())
	}
	if len(judged) == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no judged series with two or more x values in the claim's range", Effect: "–", Test: "–", Details: o.Details}
	}
	o.Test = joinTests(tests)
	o.Effect = effectRangeOf(effs, len(judged), "series")
	n := len(judged)
	// Which series were judged, always said.
	var judgedSay string
	switch {
	case len(c.Series) > 0:
		judgedSay = "the claim's series (" + listNames(judgedNames) + ")"
	default:
		judgedSay = "every series (" + listNames(judgedNames) + ")"
	}
	if c.From != nil || c.To != nil {
		judgedSay += ", over " + shortName(x) + " " + shortName(lo) + "→" + shortName(hi)
	}
	var parts []string
	suffix := ""
	if c.Trend == "flat" {
		parts = append(parts, fmt.Sprintf("flat within %s in %d of %d series", fl, count[within], n))
		for _, cl := range []string{differs, tie, noCI} {
			if count[cl] > 0 {
				parts = append(parts, map[string]string{differs: "changing", tie: "undetermined", noCI: "without a CI"}[cl]+": "+listNames(names[cl]))
			}
		}
		o.Ours = strings.Join(append(parts, "judged: "+judgedSay), "; ")
		o.Class = sameVerdict(count, n)
		if o.Class == Disagrees {
			suffix = fmt.Sprintf(" (%d of %d series %s)", count[differs], n, plural(count[differs], "changes", "change"))
		}
		o.Verdict = o.Class + suffix
		return o
	}
	parts = append(parts, fmt.Sprintf("%s in %d of %d series", c.Trend, count[win], n))
	for _, cl := range []string{loss, tie, negligible, undetermined, zeroBase, noCI} {
		if count[cl] > 0 {
			parts = append(parts, map[string]string{loss: "the opposite way", tie: "no change beyond the CIs", negligible: "a change within the floor",
				undetermined: "a change of undetermined size", zeroBase: "a change from 0 (no relative size; set abs_floor)", noCI: "without a CI"}[cl]+": "+listNames(names[cl]))
		}
	}
	if count["back"] > 0 {
		parts = append(parts, "a step back beyond the CIs and the floor: "+listNames(names["back"]))
	}
	sized := true
	if c.Change != nil {
		var rs []float64
		part := 0
		for _, sr := range judged {
			if !sr.whole {
				part++
				continue
			}
			if r := sr.d.ratio(); !math.IsNaN(r) {
				rs = append(rs, r)
				sized = sized && SameSize(r, 1+*c.Change)
			}
		}
		if len(rs) > 0 {
			parts = append(parts, fmt.Sprintf("last/first %s (paper %.3g)", rangeOf(rs, "%.3g"), 1+*c.Change))
		}
		if part > 0 {
			parts = append(parts, fmt.Sprintf("size not judged in %d %s that do not span %s→%s (the paper's range)", part, plural(part, "series", "series"), shortName(lo), shortName(hi)))
		}
	}
	switch {
	case count[noCI] > 0:
		o.Class = NotEnough
	case count[loss] > 0:
		o.Class = Disagrees
		suffix = fmt.Sprintf(" (%d of %d series the opposite way)", count[loss], n)
	case count[win] == n && count["back"] == 0:
		o.Class = Agrees
		if !sized {
			o.Class = DifferentSize
		} else if w := c.worded(effs); w != "" {
			o.Class = DifferentSize
			parts = append(parts, w)
		}
	case count[win] > 0:
		o.Class = Partly
		if count[win] == n {
			suffix = fmt.Sprintf(" (a step back in %d of %d series)", count["back"], n)
		}
	case count[negligible] == n:
		o.Class = Negligible
	default:
		o.Class = NoDifference
	}
	o.Ours = strings.Join(append(parts, "judged: "+judgedSay), "; ")
	o.Verdict = o.Class + suffix
	return o
}

// groupBy groups configurations by their parameters outside skip, in
// order of first appearance.
func groupBy(configs []DataConfig, skip map[string]bool) (map[string][]DataConfig, []string) {
	groups := map[string][]DataConfig{}
	var order []string
	for _, cf := range configs {
		k := keyExcept(cf.Params, skip)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cf)
	}
	return groups, order
}

// repeatsX reports whether a group has two configurations at one x.
func repeatsX(groups map[string][]DataConfig, x string) bool {
	for _, g := range groups {
		var seen []string
		for _, cf := range g {
			if hasValue(seen, cf.Params[x]) {
				return true
			}
			seen = append(seen, cf.Params[x])
		}
	}
	return false
}

// listNames lists names, at most eight, then how many more.
func listNames(names []string) string {
	const most = 8
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
}

// trendState says what a series does, in words.
func trendState(trend string, sr seriesResult) string {
	switch sr.class {
	case win:
		if len(sr.backs) > 0 {
			return trend + " overall, with a step back beyond the CIs and the floor (" + strings.Join(sr.backs, "; ") + ")"
		}
		return trend + " beyond the CIs"
	case loss:
		return "the opposite way beyond the CIs"
	case negligible:
		return "a change within the floor"
	case undetermined:
		return "a change of undetermined size (its CI straddles the floor)"
	case zeroBase:
		return "a change from 0 (no relative size; abs_floor judges it)"
	case noCI:
		return "no CI (one replication)"
	case within:
		return "flat within the floor"
	case differs:
		return "changes beyond the CIs and the floor"
	}
	return "no change beyond the CIs"
}

// judges reports whether the claim's series: list covers the series of
// a configuration (true without a list).
func (c *Claim) judges(p map[string]string) bool {
	if len(c.Series) == 0 {
		return true
	}
	for _, term := range c.Series {
		k, v := seriesTerm(term)
		if sameValue(p[k], v) {
			return true
		}
	}
	return false
}

// seriesName names a series by its parameters outside skip: the policy
// by its name, others as key=value.
func seriesName(p map[string]string, skip map[string]bool) string {
	var parts []string
	if v, ok := p["policy"]; ok && !skip["policy"] {
		parts = append(parts, v)
	}
	for _, k := range sortedKeys(p) {
		if k != "policy" && !skip[k] {
			parts = append(parts, shortName(k)+"="+shortName(p[k]))
		}
	}
	return orDefault(strings.Join(parts, ", "), "the runs")
}

func evalBound(c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	lo, hi := math.Inf(-1), math.Inf(1)
	if c.AtLeast != nil {
		lo = *c.AtLeast
	}
	if c.AtMost != nil {
		hi = *c.AtMost
	}
	// The classic form (at most, every configuration) keeps its words.
	classic := c.AtLeast == nil && c.Share == nil
	inWord, outWord := "within", "beyond"
	if classic {
		inWord, outWord = "below", "above"
	}
	in, out, undetermined, noci, n := 0, 0, 0, 0, 0
	maxMean, maxHW := math.Inf(-1), math.NaN()
	minMean, minHW := math.Inf(1), math.NaN()
	o := Outcome{}
	ns := map[int]bool{}
	for _, cf := range configs {
		st := data.Stat(cf.Index, metric)
		if st.N == 0 {
			continue
		}
		h := st.HalfWidth()
		n++
		ns[st.N] = true
		state := ""
		switch {
		case math.IsNaN(h):
			noci++
			state = noCI
		case st.Mean+h <= hi && st.Mean-h >= lo:
			in++
			state = inWord
		case st.Mean-h > hi || st.Mean+h < lo:
			out++
			state = outWord
		default:
			undetermined++
			state = "within its CI of the bound"
		}
		if st.Mean > maxMean {
			maxMean, maxHW = st.Mean, h
		}
		if st.Mean < minMean {
			minMean, minHW = st.Mean, h
		}
		o.Details = append(o.Details, fmt.Sprintf("%s: %s ± %s (n=%d): %s", cf.ID, num(st.Mean), num(h), st.N, state))
	}
	if n == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–", Details: o.Details}
	}
	share := 1.0
	if c.Share != nil {
		share = *c.Share
	}
	// The paper's share of exceptions, as a count of ours (nearest), and
	// whether our count beyond the bound is more than that share
	// explains by chance (one-sided binomial test at 5%, configurations
	// taken as independent): a share below 1 is never refuted by one
	// point of a few.
	allowed := int(math.Floor((1-share)*float64(n) + 0.5))
	refuted := binomialTail(n, out, 1-share) < 0.05
	if classic {
		o.Ours = fmt.Sprintf("at most %s at %d of %d configurations (largest %s ± %s)", num(hi), in, n, num(maxMean), num(maxHW))
	} else {
		o.Ours = fmt.Sprintf("%s at %d of %d configurations, beyond it at %d (%s needed; means %s ± %s … %s ± %s)",
			boundWords(c), in, n, out, shareNeeded(share, n, allowed), num(minMean), num(minHW), num(maxMean), num(maxHW))
	}
	o.Effect = "–"
	var sizes []int
	for k := range ns {
		sizes = append(sizes, k)
	}
	sort.Ints(sizes)
	o.Test = "CI of the mean, n=" + intRange(sizes)
	suffix := ""
	switch {
	case noci > 0:
		o.Class = NotEnough
	case out > 0 && refuted:
		o.Class = Disagrees
		suffix = fmt.Sprintf(" (%d of %d configurations %s)", out, n, outWord)
	case in >= n-allowed:
		o.Class = Agrees
	case in > 0:
		o.Class = Partly
	default:
		o.Class = NoDifference
	}
	o.Verdict = o.Class + suffix
	return o
}

// boundWords names a bound: "at most 0", "at least -0.05", "within
// [-0.05, 0.05]".
func boundWords(c *Claim) string {
	switch {
	case c.AtLeast != nil && c.AtMost != nil:
		return "within [" + strconv.FormatFloat(*c.AtLeast, 'g', -1, 64) + ", " + strconv.FormatFloat(*c.AtMost, 'g', -1, 64) + "]"
	case c.AtLeast != nil:
		return "at least " + strconv.FormatFloat(*c.AtLeast, 'g', -1, 64)
	}
	return "at most " + strconv.FormatFloat(*c.AtMost, 'g', -1, 64)
}

// shareNeeded says how many configurations a share asks for: "all",
// or "43 of 48 (the paper's share 0.896)".
func shareNeeded(share float64, n, allowed int) string {
	if share >= 1 {
		return "all"
	}
	return fmt.Sprintf("%d of %d at the paper's share %s", n-allowed, n, strconv.FormatFloat(share, 'g', 3, 64))
}

// binomialTail is P(X ≥ k) for X ~ Binomial(n, p).
func binomialTail(n, k int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	total := 0.0
	for i := k; i <= n; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		l1, _ := math.Lgamma(float64(i + 1))
		l2, _ := math.Lgamma(float64(n - i + 1))
		total += math.Exp(lc - l1 - l2 + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return math.Min(total, 1)
}

// combine writes the outcomes as one verdict: the verdict when every
// reading gives it, else "agrees under A; disagrees under B and C" in
// the readings' order (the paper's first).
func combine(outs []Outcome) string {
	if len(outs) == 0 {
		return NotRun
	}
	same := true
	for _, o := range outs {
		same = same && o.Verdict == outs[0].Verdict
	}
	if same {
		if len(outs) == 1 && outs[0].Reading != "" {
			return outs[0].Verdict + " (under " + outs[0].Reading + ")"
		}
		return outs[0].Verdict
	}
	var order []string
	under := map[string][]string{}
	byClaim := false
	for _, o := range outs {
		byClaim = byClaim || o.Class == Mixed || strings.Contains(o.Verdict, " values")
		if _, ok := under[o.Verdict]; !ok {
			order = append(order, o.Verdict)
		}
		under[o.Verdict] = append(under[o.Verdict], o.Reading)
	}
	var parts []string
	if byClaim {
		for _, o := range outs {
			parts = append(parts, "under "+o.Reading+": "+o.Verdict)
		}
		return strings.Join(parts, "; ")
	}
	for _, v := range order {
		parts = append(parts, v+" under "+joinAnd(under[v]))
	}
	return strings.Join(parts, "; ")
}

func joinAnd(xs []string) string {
	if len(xs) > 1 {
		xs = append([]string(nil), xs...)
		for i, x := range xs {
			if strings.Contains(x, ", ") {
				xs[i] = "[" + x + "]"
			}
		}
	}
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// pct formats a relative effect in percent: one decimal, or two
// significant digits when that would round a non-zero effect to 0.
func pct(e float64) string {
	if math.IsNaN(e) {
		return "–"
	}
	s := strconv.FormatFloat(100*e, 'f', 1, 64)
	if (s == "0.0" || s == "-0.0") && e != 0 {
		s = strconv.FormatFloat(100*e, 'g', 2, 64)
	}
	return s + "%"
}

// signed is pct with a sign.
func signed(e float64) string {
	s := pct(e)
	if !strings.HasPrefix(s, "-") && s != "–" {
		s = "+" + s
	}
	return s
}

// pctCI formats a difference as its relative effect and 95% CI
// half-width: "+12.8% ± 7.9%" (the absolute difference where the base
// is 0).
func pctCI(x diff) string {
	e, h := x.rel()
	switch {
	case math.IsNaN(e) && math.IsNaN(x.h):
		return "relative effect – (base 0; difference " + num(x.d) + ", no CI)"
	case math.IsNaN(e):
		return "relative effect – (base 0; difference " + num(x.d) + " ± " + num(x.h) + ")"
	case math.IsNaN(h):
		return signed(e) + " (no CI)"
	}
	return signed(e) + " ± " + pct(h)
}

// effectRange is the relative effect of one point with its CI, or the
// range of several points' effects.
func effectRange(effs []float64, pts []point) string {
	if len(pts) == 1 {
		return pctCI(pts[0].d)
	}
	return effectRangeOf(effs, len(pts), "points")
}

func effectRangeOf(effs []float64, n int, what string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range effs {
		if !math.IsNaN(e) {
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
	}
	if math.IsInf(lo, 1) {
		return "–"
	}
	if lo == hi {
		return fmt.Sprintf("%s (%d %s)", signed(lo), n, what)
	}
	return fmt.Sprintf("%s … %s (%d %s)", signed(lo), signed(hi), n, what)
}

// rangeOf formats the range of xs.
func rangeOf(xs []float64, format string) string {
	lo, hi := xs[0], xs[0]
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	a, b := fmt.Sprintf(format, lo), fmt.Sprintf(format, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// testsOf names the intervals of the points: "paired t, n=30" or a mix.
func testsOf(pts []point) string {
	tests := make([]string, len(pts))
	for i, p := range pts {
		tests[i] = p.d.test()
	}
	return joinTests(tests)
}

// joinTests summarises intervals: "paired t, n=20–30", "paired t, n=30
// (4); Welch, n=5+5 (2)", "exact (sd 0), n=2".
func joinTests(tests []string) string {
	type group struct {
		ns    map[int]bool
		pairs map[string]bool // Welch's n+m
		count int
	}
	kinds := []string{"paired t, n=", "exact (sd 0), n=", "Welch, n="}
	groups := map[string]*group{}
	var other []string
	for _, t := range tests {
		kind := ""
		for _, k := range kinds {
			if strings.HasPrefix(t, k) {
				kind = k
			}
		}
		if kind == "" {
			if t != "–" && t != "" && !hasValue(other, t) {
				other = append(other, t)
			}
			continue
		}
		g := groups[kind]
		if g == nil {
			g = &group{ns: map[int]bool{}, pairs: map[string]bool{}}
			groups[kind] = g
		}
		g.count++
		rest := strings.TrimPrefix(t, kind)
		if n, err := strconv.Atoi(rest); err == nil {
			g.ns[n] = true
		} else {
			g.pairs[rest] = true
		}
	}
	var parts []string
	for _, k := range kinds {
		g := groups[k]
		if g == nil {
			continue
		}
		var s string
		if len(g.pairs) > 0 {
			ws := sortedKeys(g.pairs)
			s = k + ws[0]
			if len(ws) > 1 {
				s += "…" + ws[len(ws)-1]
			}
		} else {
			var ns []int
			for n := range g.ns {
				ns = append(ns, n)
			}
			sort.Ints(ns)
			s = k + intRange(ns)
		}
		if len(groups) > 1 || len(other) > 0 {
			s += fmt.Sprintf(" (%d)", g.count)
		}
		parts = append(parts, s)
	}
	parts = append(parts, other...)
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, "; ")
}

func intRange(ns []int) string {
	if len(ns) == 0 {
		return "–"
	}
	if ns[0] == ns[len(ns)-1] {
		return strconv.Itoa(ns[0])
	}
	return strconv.Itoa(ns[0]) + "–" + strconv.Itoa(ns[len(ns)-1])
}

func itoa(i int) string { return strconv.Itoa(i) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
