package experiment

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// CI95 returns the mean, the sample standard deviation and the half-width
// of the 95% confidence interval of the mean by Student's t with n−1
// degrees of freedom. With fewer than two values the deviation is 0 and
// the half-width NaN (unknown).
func CI95(x []float64) (mean, sd, halfWidth float64) {
	n := len(x)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean = stat.Mean(x, nil)
	if n < 2 {
		return mean, 0, math.NaN()
	}
	sd = stat.StdDev(x, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return mean, sd, t * sd / math.Sqrt(float64(n))
}

func fmtNum(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return b
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func csvField(b []byte, s string) []byte {
	if strings.ContainsAny(s, ",\"\n") {
		return append(append(append(b, '"'), strings.ReplaceAll(s, `"`, `""`)...), '"')
	}
	return append(b, s...)
}

// sortedParamKeys lists the parameter names of a set of configurations.
func sortedParamKeys(params []map[string]string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, p := range params {
		for k := range p {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// appendConfig writes the columns that identify a configuration:
// config_index, config_id and one column per parameter key.
func appendConfig(b []byte, index int, id string, params map[string]string, keys []string) []byte {
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, ',')
	b = csvField(b, id)
	for _, k := range keys {
		b = append(b, ',')
		b = csvField(b, params[k])
	}
	return b
}

// WriteRuns writes one CSV row per run: configuration, parameters,
// replication, seed and the metrics the runs have: a registered metric
// (in the registry's order) gets a column when some run has it, then any
// other (a spec's paired metrics) in name order. A cloud sweep's file so
// has the cloud's columns and no empty column of another system's. Rows
// come in configuration then replication order, so the file is the same
// however the runs were scheduled, sharded or interrupted.
func WriteRuns(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	ps := make([]map[string]string, len(rows))
	for i := range rows {
		ps[i] = rows[i].Params
	}
	keys := sortedParamKeys(ps)
	head := append([]string{"config_index", "config_id"}, keys...)
	head = append(head, "replication", "seed")
	names := runMetrics(rows)
	head = append(head, names...)
	bw.WriteString(strings.Join(head, ",") + "\n")
	var b []byte
	for _, r := range rows {
		b = appendConfig(b[:0], r.ConfigIndex, r.ConfigID, r.Params, keys)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Rep), 10)
		b = append(b, ',')
		b = append(b, r.Seed...)
		for _, m := range names {
			b = append(b, ',')
			if v, ok := r.Metrics[m]; ok { // absent (the run has no such metric): empty
				b = fmtNum(b, v)
			}
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteAggregate writes one CSV row per configuration and metric: n,
// mean, standard deviation and the 95% CI (half-width, low, high).
func WriteAggregate(w io.Writer, aggs []Agg) error {
	bw := bufio.NewWriter(w)
	ps := make([]map[string]string, len(aggs))
	for i := range aggs {
		ps[i] = aggs[i].Params
	}
	keys := sortedParamKeys(ps)
	head := append([]string{"config_index", "config_id"}, keys...)
	head = append(head, "metric", "n", "mean", "sd", "ci95_halfwidth", "ci95_low", "ci95_high")
	bw.WriteString(strings.Join(head, ",") + "\n")
	var b []byte
	for _, a := range aggs {
		b = appendConfig(b[:0], a.ConfigIndex, a.ConfigID, a.Params, keys)
		b = append(b, ',')
		b = append(b, a.Metric...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(a.N), 10)
		for _, v := range []float64{a.Mean, a.SD, a.HalfWidth, a.Mean - a.HalfWidth, a.Mean + a.HalfWidth} {
			b = append(b, ',')
			b = fmtNum(b, v)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// runMetrics lists the metric columns of runs.csv: the registered metrics
// some row has, in the registry's order, then the others in name order.
func runMetrics(rows []Row) []string {
	has := map[string]bool{}
	for _, r := range rows {
		for k := range r.Metrics {
			has[k] = true
		}
	}
	var out []string
	for _, m := range MetricNames() {
		if has[m] {
			out = append(out, m)
			delete(has, m)
		}
	}
	rest := make([]string, 0, len(has))
	for k := range has {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	return append(out, rest...)
}
