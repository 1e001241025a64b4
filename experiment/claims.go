package experiment

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Claim is a statement of a paper that the report checks against our
// results: a trend of a metric along the plot's x axis, or a comparison
// of two values of one parameter.
type Claim struct {
	Claim  string `yaml:"claim" json:"claim"`           // the paper's statement
	Source string `yaml:"source" json:"source"`         // where the paper says it
	Paper  string `yaml:"paper" json:"paper,omitempty"` // the paper's numbers, if any
	Metric string `yaml:"metric" json:"metric"`
	// Trend: increasing or decreasing along plot.x, in every series.
	Trend string `yaml:"trend" json:"trend,omitempty"`
	// Compare: Param=Better against Param=Worse at every other setting;
	// Expect: "better" (better everywhere) or "better-when-ample" (loses
	// or ties at small x, better from some x on).
	Param  string `yaml:"param" json:"param,omitempty"`
	Better string `yaml:"better" json:"better,omitempty"`
	Worse  string `yaml:"worse" json:"worse,omitempty"`
	Expect string `yaml:"expect" json:"expect,omitempty"`
	// Ratio: the paper's Better/Worse (e.g. 1.33 for "AP_SRRM ≈ 1.33 ×
	// AP_DRRM"), at x = At if given; the verdict then also checks the
	// size of our effect.
	Ratio float64 `yaml:"ratio" json:"ratio,omitempty"`
	At    any     `yaml:"at" json:"at,omitempty"`
	// Size: the size the paper's words give the effect, for claims
	// without a number: "slight" (略, 稍: our pooled relative effect at
	// most SlightEffect) or "large" (远远, 大大, 明显: at least
	// LargeEffect). An effect the paper's way but outside that size is
	// DifferentSize.
	Size string `yaml:"size" json:"size,omitempty"`
	// LowerIsBetter: for comparisons (makespan: true; QoS: false).
	LowerIsBetter bool `yaml:"lower_is_better" json:"lower_is_better,omitempty"`
	// Note explains a disagreement (written after looking at results).
	Note string `yaml:"note" json:"note,omitempty"`
}

func (c *Claim) validate(s *Spec) error {
	if !s.isMetric(c.Metric) {
		return fmt.Errorf("unknown metric %q", c.Metric)
	}
	switch {
	case c.Trend != "":
		if c.Trend != "increasing" && c.Trend != "decreasing" {
			return fmt.Errorf("trend: want increasing or decreasing, got %q", c.Trend)
		}
	case c.Param != "":
		if c.Better == "" || c.Worse == "" {
			return fmt.Errorf("a comparison needs better and worse values of %s", c.Param)
		}
		if c.Expect != "better" && c.Expect != "better-when-ample" {
			return fmt.Errorf("expect: want better or better-when-ample, got %q", c.Expect)
		}
	default:
		return fmt.Errorf("a claim needs a trend or a comparison (param, better, worse)")
	}
	switch c.Size {
	case "", "slight", "large":
	default:
		return fmt.Errorf("size: want slight or large, got %q", c.Size)
	}
	return nil
}

// The bounds of the worded sizes (Claim.Size), on the pooled relative
// effect (Verdict.Effect): "slight" is at most 20%, "large" at least 50%
// (for a lower-is-better comparison, the better one at most half the
// worse one). Our choice; README's spec section states it.
const (
	SlightEffect = 0.20
	LargeEffect  = 0.50
)

// Verdict classes. A claim agrees when our results go the paper's way
// beyond the 95% CIs everywhere the claim applies (and, when the paper
// gives a ratio, with an effect of the same order); a tie is never a win.
const (
	Agrees        = "agrees"
	DifferentSize = "same direction, different size"
	Partly        = "partly" // beyond the CIs in the paper's direction somewhere, no difference detected elsewhere
	NoDifference  = "no difference detected"
	Disagrees     = "disagrees"
)

// Verdict is the outcome of checking a claim.
type Verdict struct {
	Ours   string // what our results show, point by point
	Short  string // in a few words (wins/ties/losses, series with the trend)
	Agrees string // one of the classes above
	// Effect is our relative effect pooled over the points (comparison:
	// (worse − better)/|worse| oriented so that positive favours Better;
	// trend: (last − first)/|first| in the claimed direction), with its
	// 95% CI half-width (NaN: none).
	Effect, EffectHW float64
	// Ratio is our Better/Worse at the claim's point (NaN: none), next to
	// the paper's (Claim.Ratio).
	Ratio float64
}

func xOf(s *Spec) string {
	if s.Plot.X != "" {
		return s.Plot.X
	}
	if ks := sortedKeys(s.Grid); len(ks) > 0 {
		return ks[0]
	}
	if ks := sortedKeys(s.Zip); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

type point struct{ x, mean, hw float64 }

// diffHW is the 95% half-width of the difference of two independent means.
func diffHW(a, b point) float64 { return math.Sqrt(a.hw*a.hw + b.hw*b.hw) }

// Check evaluates the claim on the aggregates.
func (c *Claim) Check(s *Spec, aggs []Agg) Verdict {
	x := xOf(s)
	zipped := map[string]bool{}
	if s.Zip[x] != nil {
		split := splitPartners(s, x)
		for k := range s.Zip {
			zipped[k] = !split[k]
		}
	}
	// group by every parameter but x (and its zip partners, and, for
	// comparisons, the compared one)
	groups := map[string][]point{}
	var order []string
	for _, a := range aggs {
		if a.Metric != c.Metric {
			continue
		}
		var parts []string
		for _, k := range sortedKeys(a.Params) {
			if k != x && !zipped[k] && (c.Param == "" || k != c.Param) {
				parts = append(parts, k+"="+a.Params[k])
			}
		}
		key := strings.Join(parts, ",")
		if c.Param != "" {
			key = a.Params[c.Param] + "|" + key
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		hw := a.HalfWidth
		if math.IsNaN(hw) {
			hw = 0 // one replication of a deterministic replay
		}
		groups[key] = append(groups[key], point{x: parseNum(a.Params[x]), mean: a.Mean, hw: hw})
	}
	for _, k := range order {
		sort.SliceStable(groups[k], func(i, j int) bool { return groups[k][i].x < groups[k][j].x })
	}
	if c.Trend != "" {
		return c.worded(c.checkTrend(groups, order))
	}
	return c.worded(c.checkCompare(x, groups, order))
}

// pooled is the mean of relative effects and the half-width of that mean
// (independent points: root of the summed squares over n).
func pooled(effs, hws []float64) (float64, float64) {
	if len(effs) == 0 {
		return math.NaN(), math.NaN()
	}
	m, v := 0.0, 0.0
	for i := range effs {
		m += effs[i]
		v += hws[i] * hws[i]
	}
	n := float64(len(effs))
	return m / n, math.Sqrt(v) / n
}

func rel(d, hw, base float64) (float64, float64) {
	if base == 0 {
		return math.NaN(), math.NaN()
	}
	return d / math.Abs(base), hw / math.Abs(base)
}

func (c *Claim) checkTrend(groups map[string][]point, order []string) Verdict {
	up, down, flat, total := 0, 0, 0, 0
	reversed := 0
	var desc []string
	var effs, hws []float64
	sign := 1.0
	if c.Trend == "decreasing" {
		sign = -1
	}
	for _, k := range order {
		ps := groups[k]
		if len(ps) < 2 {
			continue
		}
		total++
		first, last := ps[0], ps[len(ps)-1]
		change := sign * (last.mean - first.mean)
		hw := diffHW(first, last)
		// a step against the trend beyond its CIs breaks monotonicity
		back := false
		for i := 1; i < len(ps); i++ {
			if -sign*(ps[i].mean-ps[i-1].mean) > diffHW(ps[i], ps[i-1]) {
				back = true
			}
		}
		state := ""
		switch {
		case change > hw && !back:
			up++
			state = c.Trend + " beyond the CIs"
		case change > hw:
			up++
			reversed++
			state = c.Trend + " overall, with a reversal beyond the CIs"
		case change < -hw:
			down++
			state = "the opposite way beyond the CIs"
		default:
			flat++
			state = "no change beyond the CIs"
		}
		e, ehw := rel(change, hw, first.mean)
		if !math.IsNaN(e) {
			effs, hws = append(effs, e), append(hws, ehw)
		}
		desc = append(desc, fmt.Sprintf("%s: %s → %s, %s", shortKey(k), num(first.mean), num(last.mean), state))
	}
	v := Verdict{Ratio: math.NaN()}
	v.Effect, v.EffectHW = pooled(effs, hws)
	v.Ours = fmt.Sprintf("%s beyond the CIs in %d of %d series, the opposite way in %d, no change in %d (%s)", c.Trend, up, total, down, flat, strings.Join(desc, "; "))
	v.Short = fmt.Sprintf("%s in %d of %d series (opposite: %d, flat: %d)", c.Trend, up, total, down, flat)
	switch {
	case total == 0:
		v.Agrees = NoDifference
		v.Ours = "no series with two or more x values"
	case down > 0:
		v.Agrees = Disagrees
	case up == total && reversed == 0:
		v.Agrees = Agrees
	case up > 0:
		v.Agrees = Partly
	default:
		v.Agrees = NoDifference
	}
	return v
}

func (c *Claim) checkCompare(x string, groups map[string][]point, order []string) Verdict {
	var cells []string
	wins, ties, losses := 0, 0, 0
	var patterns []string
	var effs, hws []float64
	ratio := math.NaN()
	for _, k := range order {
		val, rest, _ := strings.Cut(k, "|")
		if val != c.Better {
			continue
		}
		other, ok := groups[c.Worse+"|"+rest]
		if !ok {
			continue
		}
		pattern := ""
		byX := map[float64]point{}
		for _, q := range other {
			byX[q.x] = q
		}
		for _, p := range groups[k] {
			q, ok := byX[p.x]
			if !ok {
				continue
			}
			d := q.mean - p.mean // positive: Better is lower
			if !c.LowerIsBetter {
				d = -d
			}
			hw := diffHW(p, q)
			r := "tie"
			switch {
			case d > hw:
				r = "win"
				wins++
				pattern += "W"
			case d < -hw:
				r = "loss"
				losses++
				pattern += "L"
			default:
				ties++
				pattern += "T"
			}
			e, ehw := rel(d, hw, q.mean)
			if !math.IsNaN(e) {
				effs, hws = append(effs, e), append(hws, ehw)
			}
			if q.mean != 0 && (c.At == nil || parseNum(fmt.Sprint(c.At)) == p.x) && math.IsNaN(ratio) {
				ratio = p.mean / q.mean
			}
			cells = append(cells, fmt.Sprintf("%s=%g: %s (%s vs %s, %+.1f%% ± %.1f%%)", shortName(x), p.x, r, num(p.mean), num(q.mean), 100*e, 100*ehw))
		}
		patterns = append(patterns, pattern)
	}
	v := Verdict{Ratio: ratio, Short: fmt.Sprintf("%d wins, %d ties, %d losses", wins, ties, losses)}
	v.Effect, v.EffectHW = pooled(effs, hws)
	v.Ours = fmt.Sprintf("%s=%s against %s: %d wins, %d ties, %d losses (win: the difference exceeds its 95%% CI). %s",
		c.Param, c.Better, c.Worse, wins, ties, losses, strings.Join(cells, "; "))
	n := wins + ties + losses
	switch c.Expect {
	case "better":
		switch {
		case n == 0 || wins+losses == 0:
			v.Agrees = NoDifference
		case losses > 0:
			v.Agrees = Disagrees
		case wins == n:
			v.Agrees = c.sized(ratio)
		default:
			v.Agrees = Partly
		}
	case "better-when-ample":
		// Every series: losses or ties while scarce, then wins to the
		// end: (L|T)* W+ along x. Ties where resources are ample are not
		// wins.
		good, lossAtEnd := 0, 0
		for _, p := range patterns {
			t := strings.TrimLeft(p, "LT")
			if t != "" && strings.Trim(t, "W") == "" {
				good++
			}
			if strings.HasSuffix(p, "L") {
				lossAtEnd++
			}
		}
		switch {
		case len(patterns) == 0 || wins+losses == 0:
			v.Agrees = NoDifference
		case good == len(patterns):
			v.Agrees = c.sized(ratio)
		case lossAtEnd > 0 || wins == 0:
			v.Agrees = Disagrees
		default:
			v.Agrees = Partly
		}
	}
	return v
}

// worded checks an agreeing verdict against the size the paper's words
// give (Claim.Size): the pooled relative effect must be at most
// SlightEffect for "slight", at least LargeEffect for "large".
func (c *Claim) worded(v Verdict) Verdict {
	if v.Agrees != Agrees || c.Size == "" || math.IsNaN(v.Effect) {
		return v
	}
	e := math.Abs(v.Effect)
	if (c.Size == "slight" && e > SlightEffect) || (c.Size == "large" && e < LargeEffect) {
		v.Agrees = DifferentSize
		v.Short += fmt.Sprintf("; the paper says %s, ours %.0f%%", c.Size, 100*e)
	}
	return v
}

// sized checks the size of an effect that goes the paper's way: with a
// paper ratio R (Better/Worse) our ratio r must be of the same order:
// |ln r| within a factor 2 of |ln R| (so 4.46× and 1/4.46 are the same
// size), else the verdict is DifferentSize.
func (c *Claim) sized(r float64) string {
	if c.Ratio <= 0 || math.IsNaN(r) || r <= 0 {
		return Agrees
	}
	paper, ours := math.Abs(math.Log(c.Ratio)), math.Abs(math.Log(r))
	if ours > 2*paper || ours < paper/2 {
		return DifferentSize
	}
	return Agrees
}

func shortKey(k string) string {
	parts := strings.Split(k, ",")
	for i, p := range parts {
		a, b, _ := strings.Cut(p, "=")
		parts[i] = shortName(a) + "=" + shortName(b)
	}
	return strings.Join(parts, ",")
}

func parseNum(s string) float64 {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return math.NaN()
	}
	return v
}

// splitPartners are the text-valued zip partners of the x axis whose
// every value keeps two or more x values (sizes zipped with traces, each
// trace with its own sizes): such a partner splits the axis into separate
// lines or panels instead of riding on it, so no line or comparison mixes
// its values (found by the issue 16 review: figures 8–9 joined
// SDSC-Par at 25 nodes to SDSC-BLUE at 100, and the claims compared u on
// one trace with random on another). Numeric partners that move with x
// stay on the axis.
func splitPartners(s *Spec, x string) map[string]bool {
	out := map[string]bool{}
	xs := s.Zip[x]
	if xs == nil {
		return out
	}
	for k, vs := range s.Zip {
		if k == x {
			continue
		}
		text := false
		for _, v := range vs {
			if _, isText := v.(string); isText && math.IsNaN(parseNum(FormatValue(v))) {
				text = true
				break
			}
		}
		if !text {
			continue
		}
		// Split only where every value keeps a line: at least two x values
		// each (a zip of one-off readings, like cloud-gang-rules' rows,
		// stays on the axis rather than making one-point panels).
		xsOf := map[string]map[string]bool{}
		for i, v := range vs {
			f := FormatValue(v)
			if xsOf[f] == nil {
				xsOf[f] = map[string]bool{}
			}
			if i < len(xs) {
				xsOf[f][FormatValue(xs[i])] = true
			}
		}
		lines := true
		for _, set := range xsOf {
			lines = lines && len(set) >= 2
		}
		if lines {
			out[k] = true
		}
	}
	return out
}
