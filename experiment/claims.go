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
	// LowerIsBetter: for comparisons (makespan: true; QoS: false).
	LowerIsBetter bool `yaml:"lower_is_better" json:"lower_is_better,omitempty"`
	// Note explains a disagreement (written after looking at results).
	Note string `yaml:"note" json:"note,omitempty"`
}

func (c *Claim) validate(s *Spec) error {
	if !IsMetric(c.Metric) {
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
	return nil
}

// Verdict is the outcome of checking a claim.
type Verdict struct {
	Ours   string // what our results show
	Agrees string // "yes", "no", "partly"
}

func xOf(s *Spec) string {
	if s.Plot.X != "" {
		return s.Plot.X
	}
	if ks := sortedKeys(s.Grid); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// Check evaluates the claim on the aggregates.
func (c *Claim) Check(s *Spec, aggs []Agg) Verdict {
	x := xOf(s)
	type point struct{ x, mean, hw float64 }
	// group by every parameter but x (and, for comparisons, the compared one)
	groups := map[string][]point{}
	var order []string
	for _, a := range aggs {
		if a.Metric != c.Metric {
			continue
		}
		var parts []string
		for _, k := range sortedKeys(a.Params) {
			if k != x && (c.Param == "" || k != c.Param) {
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
			hw = 0
		}
		groups[key] = append(groups[key], point{x: parseNum(a.Params[x]), mean: a.Mean, hw: hw})
	}
	for _, k := range order {
		sort.Slice(groups[k], func(i, j int) bool { return groups[k][i].x < groups[k][j].x })
	}
	if c.Trend != "" {
		ok, flat, partly, total := 0, 0, 0, 0
		var desc []string
		for _, k := range order {
			ps := groups[k]
			if len(ps) < 2 {
				continue
			}
			total++
			mono := true
			for i := 1; i < len(ps); i++ {
				d := ps[i].mean - ps[i-1].mean
				if (c.Trend == "increasing" && d < 0) || (c.Trend == "decreasing" && d > 0) {
					mono = false
				}
			}
			first, last := ps[0], ps[len(ps)-1]
			change := last.mean - first.mean
			if c.Trend == "decreasing" {
				change = -change
			}
			beyond := change > first.hw+last.hw && change > 1e-12*math.Abs(first.mean)
			state := "not " + c.Trend
			switch {
			case beyond && mono:
				ok++
				state = c.Trend
			case beyond:
				partly++
				state = c.Trend + " overall, not monotone"
			case change >= 0:
				flat++
				state = "no change beyond the 95% CIs"
			}
			desc = append(desc, fmt.Sprintf("%s: %s → %s, %s", shortKey(k), num(first.mean), num(last.mean), state))
		}
		v := Verdict{Ours: fmt.Sprintf("%s in %d of %d series (%s)", c.Trend, ok, total, strings.Join(desc, "; "))}
		switch {
		case total > 0 && ok == total:
			v.Agrees = "yes"
		case ok+partly > 0:
			v.Agrees = "partly"
		default:
			v.Agrees = "no"
		}
		return v
	}
	// Comparison: Better vs Worse at each x (and each other setting).
	var cells []string
	wins, ties, losses := 0, 0, 0
	pattern := ""
	for _, k := range order {
		val, rest, _ := strings.Cut(k, "|")
		if val != c.Better {
			continue
		}
		other, ok := groups[c.Worse+"|"+rest]
		if !ok {
			continue
		}
		for i, p := range groups[k] {
			if i >= len(other) {
				break
			}
			q := other[i]
			d := q.mean - p.mean // positive: better is lower
			if !c.LowerIsBetter {
				d = -d
			}
			r := "tie"
			if math.Abs(q.mean-p.mean) > p.hw+q.hw {
				if d > 0 {
					r = "win"
				} else {
					r = "loss"
				}
			}
			switch r {
			case "win":
				wins++
				pattern += "W"
			case "tie":
				ties++
				pattern += "T"
			default:
				losses++
				pattern += "L"
			}
			cells = append(cells, fmt.Sprintf("%s=%g: %s (%s vs %s)", shortName(x), p.x, r, num(p.mean), num(q.mean)))
		}
		pattern += "|"
	}
	v := Verdict{Ours: fmt.Sprintf("%s=%s against %s: %d wins, %d ties, %d losses (win: CIs do not overlap). %s",
		c.Param, c.Better, c.Worse, wins, ties, losses, strings.Join(cells, "; "))}
	switch c.Expect {
	case "better":
		switch {
		case losses == 0 && wins > 0:
			v.Agrees = "yes"
		case wins > 0:
			v.Agrees = "partly"
		default:
			v.Agrees = "no"
		}
	case "better-when-ample":
		// Every series: no win before a loss/tie... i.e. the pattern is
		// (L|T)* W+ along x, ending in a win.
		good, n := 0, 0
		for _, s := range strings.Split(strings.TrimSuffix(pattern, "|"), "|") {
			if s == "" {
				continue
			}
			n++
			t := strings.TrimLeft(s, "LT")
			if t != "" && strings.Trim(t, "W") == "" {
				good++
			}
		}
		switch {
		case n > 0 && good == n:
			v.Agrees = "yes"
		case good > 0 || wins > 0:
			v.Agrees = "partly"
		default:
			v.Agrees = "no"
		}
	}
	return v
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
