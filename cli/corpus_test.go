package cli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/swf"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

// badCase is one input gridsched must refuse: a command line (files it
// names are written first), the exit status it must end with, and what
// its message must hold — file:line:column wherever the input has a
// position.
type badCase struct {
	name  string
	files map[string]string // name in the corpus folder → content
	args  []string          // "@name" is the path of a corpus file
	code  int
	want  string
}

// corpusEnv marks the child process that runs the corpus under the
// address-space cap.
const corpusEnv = "GRIDSCHED_BAD_INPUT_CORPUS"

// corpusAddressSpace is the cap the corpus runs under: no input may make
// gridsched take more (11 inputs once needed more, up to 112 GB).
const corpusAddressSpace = 4 << 30

// TestBadInputCorpus (issue 25): every case of the bad-input corpus —
// every reader (SWF, CSV, JSON Lines, platform, tree, model parameters,
// model configurations, specs), every field of every system's section,
// the command-line flags and foreign or damaged stores — is refused with
// the right exit status and a message naming file:line:column where the
// input has a position; none panics, none hangs over 60 s, and none takes
// more than 4 GB of address space: the corpus runs in a child process
// whose address space is capped (setrlimit RLIMIT_AS).
func TestBadInputCorpus(t *testing.T) {
	if os.Getenv(corpusEnv) == "" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, self, "-test.run=^TestBadInputCorpus$", "-test.v")
		cmd.Env = append(os.Environ(), corpusEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the corpus under a %d GiB address-space cap failed: %v\n%s", corpusAddressSpace>>30, err, tail(out, 6000))
		}
		if !bytes.Contains(out, []byte("corpus: refused all ")) {
			t.Fatalf("the child did not run the corpus:\n%s", tail(out, 3000))
		}
		i := bytes.Index(out, []byte("corpus: refused all "))
		t.Log(strings.TrimSpace(string(out[i : i+bytes.IndexByte(out[i:], '\n')])))
		return
	}
	capped := limitAddressSpace(corpusAddressSpace)
	if !capped && runtime.GOOS == "linux" {
		t.Fatal("the address-space cap is not in force")
	}
	dir := t.TempDir()
	t.Setenv("GRIDSCHED_TRACES", filepath.Join(dir, "traces"))
	cases := badInputCorpus(t, dir)
	if len(cases) < 500 {
		t.Fatalf("only %d cases", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("case %q twice", c.name)
		}
		seen[c.name] = true
		for name, text := range c.files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := make([]string, len(c.args))
		for i, a := range c.args {
			if strings.HasPrefix(a, "@") {
				a = filepath.Join(dir, a[1:])
			}
			args[i] = a
		}
		out := filepath.Join(dir, "out-"+strconv.Itoa(len(seen)))
		if len(args) > 0 && args[0] == "simulate" {
			args = append(args, "--out", out, "--quiet")
		}
		code, stdout, stderr := runCase(c.name, args)
		msg := strings.TrimPrefix(strings.TrimSpace(stderr), "gridsched: ")
		switch {
		case code != c.code:
			t.Errorf("%s: exit %d, want %d\n  %q\n  %.600s", c.name, code, c.code, args, msg)
		case !containsAny(msg, c.want):
			t.Errorf("%s: the message lacks %q:\n  %.600s", c.name, c.want, msg)
		case strings.Contains(msg, "%!"):
			t.Errorf("%s: a formatting slip: %.300s", c.name, msg)
		case len(msg) > 20000:
			t.Errorf("%s: a message of %d bytes", c.name, len(msg))
		}
		if stdout != "" && c.code != 0 {
			t.Errorf("%s: printed %.200q despite the error", c.name, stdout)
		}
		for _, o := range []string{out, filepath.Join(dir, "never")} {
			if _, err := os.Stat(o); err == nil {
				t.Errorf("%s: output folder %s left behind", c.name, filepath.Base(o))
				os.RemoveAll(o)
			}
		}
	}
	fmt.Printf("corpus: refused all %d cases as expected (address space capped at %d GiB: %v)\n", len(cases), corpusAddressSpace>>30, capped)
}

// runCase runs one command line in-process; a panic fails the case, a
// case that runs over 60 s ends the process.
func runCase(name string, args []string) (code int, stdout, stderr string) {
	watchdog := time.AfterFunc(60*time.Second, func() {
		fmt.Fprintf(os.Stderr, "corpus case %s: still running after 60 s\n", name)
		os.Exit(2)
	})
	defer watchdog.Stop()
	defer func() {
		if r := recover(); r != nil {
			code, stderr = -1, fmt.Sprintf("panic: %v", r)
		}
	}()
	return status(args...)
}

// containsAny: msg holds one of the |-separated wants.
func containsAny(msg, wants string) bool {
	for _, w := range strings.Split(wants, "|") {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// at finds the marker "@@" in doc, removes it and returns the document
// and the 1-based line and column where it stood.
func at(doc string) (string, int, int) {
	i := strings.Index(doc, "@@")
	if i < 0 {
		panic("no @@ in " + doc)
	}
	line := strings.Count(doc[:i], "\n") + 1
	col := i - strings.LastIndex(doc[:i], "\n")
	return doc[:i] + doc[i+2:], line, col
}

// yamlCase is a case on a YAML file: doc holds "@@" before the bad value;
// want is the message after "file:line:column: ".
func yamlCase(name, file, doc string, args []string, code int, want string) badCase {
	d, line, col := at(doc)
	return badCase{name: name, files: map[string]string{file: d}, args: args, code: code, want: fmt.Sprintf("%s:%d:%d: %s", file, line, col, want)}
}

// rangeValues are values outside a range tag, spelled in every YAML
// integer form the bound allows, with the message part they must bring.
func rangeValues(tag string, integer bool) []string {
	lo, hi, _ := strings.Cut(tag[1:len(tag)-1], ",")
	var out []string
	spell := func(v float64) {
		out = append(out, strconv.FormatFloat(v, 'g', -1, 64))
		if v != math.Trunc(v) {
			return
		}
		n := int64(v)
		sign, a := "", n
		if n < 0 {
			sign, a = "-", -n
		}
		out = append(out, fmt.Sprintf("%s0x%x", sign, a), fmt.Sprintf("%s0o%o", sign, a), fmt.Sprintf("%s0b%b", sign, a))
	}
	if lo != "" {
		l, _ := strconv.ParseFloat(lo, 64)
		v := math.Ceil(l) - 1
		if tag[0] == '(' && l == math.Trunc(l) {
			v = l
		}
		spell(v)
		if !integer && l != math.Trunc(l) {
			out = append(out, strconv.FormatFloat(l/2, 'g', -1, 64))
		}
	}
	if hi != "" {
		h, _ := strconv.ParseFloat(hi, 64)
		v := math.Floor(h) + 1
		if tag[len(tag)-1] == ')' && h == math.Trunc(h) {
			v = h
		}
		spell(v)
	}
	return out
}

// sectionField is a numeric or text field of a system's section.
type sectionField struct {
	path  []string // keys below the section
	kind  reflect.Kind
	rng   string
	enum  bool // a text with a fixed set of values
	value string
}

// sectionFields walks a section's parameter type.
func sectionFields(t reflect.Type, path []string) []sectionField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []sectionField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if strings.Contains(opts, "inline") {
			out = append(out, sectionFields(ft, path)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		p := append(append([]string(nil), path...), name)
		switch ft.Kind() {
		case reflect.Struct:
			out = append(out, sectionFields(ft, p)...)
		case reflect.Int, reflect.Float64, reflect.String:
			out = append(out, sectionField{path: p, kind: ft.Kind(), rng: f.Tag.Get("range")})
		}
	}
	return out
}

// block is the YAML of section key path = @@value, indented from level
// 0, one key per line.
func block(section string, path []string, value string) string {
	var b strings.Builder
	b.WriteString(section + ":\n")
	if path[0] != "model" {
		b.WriteString(sectionBase[section])
	}
	for i, k := range path {
		b.WriteString(strings.Repeat("  ", i+1) + k + ":")
		if i < len(path)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(" @@" + value + "\n")
	return b.String()
}

const corpusSpecHead = "name: corpus\nworkload: {model: lublin, params: {nodes: 16}, jobs: 10}\nplatform: {nodes: 16}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"

// sectionBase are the lines a section needs besides the one tested.
var sectionBase = map[string]string{"instability": "  model: published\n"}

// enumFields are the text fields of the sections that take one of a
// fixed set of values.
var enumFields = map[string]string{
	"cloud.policy": "want afcfs or ljfs", "cloud.migration": "want none, first-fit or best-fit", "cloud.monitor": "want jobs or tasks",
	"cloud.release_hold": "want migrating, starving or none", "instability.model": "want published or periods", "instability.u_update": "want delaying or all",
}

// badInputCorpus builds the corpus (files in dir).
func badInputCorpus(t *testing.T, dir string) []badCase {
	var cs []badCase
	add := func(c ...badCase) { cs = append(cs, c...) }

	// Every field of every system's section, through --model-config and
	// through a spec: values below or above the field's range in every
	// integer spelling, values of the wrong type, texts outside a fixed
	// set, unknown keys, a section of the wrong type, and grid values
	// out of range.
	for _, sec := range system.Sections() {
		sys, _ := system.BySection(sec)
		for _, f := range sectionFields(reflect.TypeOf(sys.NewParams()), nil) {
			full := sec + "." + strings.Join(f.path, ".")
			type bad struct{ value, want string }
			var bads []bad
			switch f.kind {
			case reflect.Int, reflect.Float64:
				if f.rng != "" {
					for _, v := range rangeValues(f.rng, f.kind == reflect.Int) {
						bads = append(bads, bad{v, v})
					}
				}
				bads = append(bads, bad{"many", "want "}, bad{"[1]", "want "}, bad{"{a: 1}", "want "})
				if f.kind == reflect.Int {
					bads = append(bads, bad{"1.5", "want an integer"}, bad{".nan", "want an integer"})
				} else {
					bads = append(bads, bad{".nan", "want a finite number"}, bad{"-.inf", "want a finite number"})
				}
			case reflect.String:
				bads = append(bads, bad{"[a]", "want a text value"}, bad{"{a: 1}", "want a text value"})
				if w, ok := enumFields[full]; ok {
					bads = append(bads, bad{"bogus", w})
				}
			}
			for i, b := range bads {
				doc := block(sec, f.path, b.value)
				add(yamlCase(fmt.Sprintf("model-config %s #%d %s", full, i, b.value), "mc.yaml", doc,
					[]string{"simulate", "--model-config", "@mc.yaml"}, exitInput, full+": "+b.want))
				add(yamlCase(fmt.Sprintf("spec %s #%d %s", full, i, b.value), "spec.yaml", corpusSpecHead+doc,
					[]string{"run", "@spec.yaml", "--out", "@never"}, exitInput, full+": "+b.want))
			}
			if f.rng != "" {
				v := rangeValues(f.rng, f.kind == reflect.Int)[0]
				add(yamlCase("spec grid "+full, "spec.yaml", corpusSpecHead+"grid:\n  "+full+": [@@"+v+"]\n",
					[]string{"run", "@spec.yaml", "--out", "@never"}, exitInput, "grid."+full+"[0]: "))
			}
		}
		add(yamlCase("model-config "+sec+" unknown key", "mc.yaml", sec+":\n  @@nosuchkey: 1\n", []string{"simulate", "--model-config", "@mc.yaml"}, exitInput, sec+".nosuchkey: unknown key"))
		add(yamlCase("spec "+sec+" unknown key", "spec.yaml", corpusSpecHead+sec+":\n  @@nosuchkey: 1\n", []string{"run", "@spec.yaml", "--out", "@never"}, exitInput, sec+".nosuchkey: unknown key"))
		add(yamlCase("model-config "+sec+" not a mapping", "mc.yaml", sec+": @@5\n", []string{"simulate", "--model-config", "@mc.yaml"}, exitInput, sec+": want a mapping"))
		add(yamlCase("spec "+sec+" not a mapping", "spec.yaml", corpusSpecHead+sec+": @@[1]\n", []string{"run", "@spec.yaml", "--out", "@never"}, exitInput, sec+": want a mapping"))
		add(badCase{name: "model-param " + sec + " unknown key", args: []string{"simulate", "--model-param", sec + ".nosuchkey=1"}, code: exitUsage, want: `unknown key "nosuchkey"`})
	}
	// Caps and floors of the sections (their own checks, at the value).
	for _, c := range []struct{ doc, want string }{
		{"cloud:\n  fixed_vms: @@100000000\n", "cloud.fixed_vms: 100000000 VMs is over the limit of 1048576 (raise it with --max-nodes)"},
		{"cloud:\n  max_vms: @@100000000\n", "cloud.max_vms: 100000000 VMs is over the limit of 1048576"},
		{"cloud:\n  boot_min: @@5\n  boot_max: 1\n", "cloud.boot_min, boot_max: need 0 <= boot_min <= boot_max, got 5, 1"},
		{"cloud:\n  max_vms: @@4\n  fixed_vms: 4\n", "cloud.max_vms, fixed_vms: a fixed pool has no cap to respect"},
		{"hierarchy:\n  tree: paper109\n  standby: @@9\n", "hierarchy.standby: 9 of 4 managers would leave none active"},
		{"hierarchy:\n  tree: paper109\n  min_active: @@9\n", "hierarchy.min_active: must be in [1, 4], got 9"},
		{"hierarchy:\n  tree: paper109\n  l_low: @@0.9\n  l_high: 0.5\n", "hierarchy.l_low, l_high: need l_low <= l_high, got 0.9 and 0.5"},
		{"hierarchy:\n  tree: paper109\n  failures:\n    mtbf: @@0.5\n", "hierarchy.failures.mtbf: must be 0 (none) or at least 1 s, got 0.5"},
		{"hierarchy:\n  tree: paper109\n  failures:\n    at: [{time: 1, manager: @@7}]\n", "hierarchy.failures.at[0].manager: the grid has managers 0..3, got 7"},
		{"hierarchy:\n  tree: paper109\n  failures:\n    at: [{time: @@x, manager: 0}]\n", "hierarchy.failures.at[0].time: want a number"},
		{"hierarchy:\n  tree: paper109\n  weights: {cpu: @@x}\n", "hierarchy.weights.cpu: want a number"},
		{"hierarchy:\n  tree: paper109-single\n  heterogeneity: @@1\n", "hierarchy.heterogeneity: 1 is out of range"},
		{"hierarchy:\n  tree: @@nosuchtree.yaml\n", "hierarchy.tree: open nosuchtree.yaml: no such file"},
		{"instability:\n  model: periods\n  cycle: @@0.000000001\n", "instability.cycle: 0.000000001 is out of range: want a value >= 60"},
		{"instability:\n  model: periods\n  cycle: @@30\n", "instability.cycle: 30 is out of range: want a value >= 60"},
	} {
		add(yamlCase("model-config check "+c.want, "mc.yaml", c.doc, []string{"simulate", "--model-config", "@mc.yaml"}, exitInput, c.want))
		add(yamlCase("spec check "+c.want, "spec.yaml", corpusSpecHead+c.doc, []string{"run", "@spec.yaml", "--out", "@never"}, exitInput, c.want))
	}

	// Platform files: every field out of range in every spelling, of the
	// wrong type; sizes over the caps.
	platFields := []struct {
		name, rng string
		integer   bool
	}{{"pes", "[1,]", true}, {"speed", "[0.001,]", false}, {"capability", "[0,]", true}, {"cost", "[0,]", false},
		{"stability", "[0,1]", false}, {"delay", "[0,]", false}, {"mips", "[0,]", false}}
	for _, f := range platFields {
		for _, v := range append(rangeValues(f.rng, f.integer), "many", "[1]", ".nan") {
			add(yamlCase("platform "+f.name+" "+v, "plat.yaml", "groups:\n  - count: 2\n    "+f.name+": @@"+v+"\n",
				[]string{"simulate", "--platform", "@plat.yaml"}, exitInput, "groups[0]."+f.name+": "))
		}
	}
	for _, v := range append(rangeValues("[1,]", true), "many", "1.5", "-1") {
		add(yamlCase("platform count "+v, "plat.yaml", "groups:\n  - count: @@"+v+"\n", []string{"simulate", "--platform", "@plat.yaml"}, exitInput, "groups[0].count: "))
	}
	for _, c := range []struct{ name, doc, want string }{
		{"count cap", "groups:\n  - count: @@2000000\n", "groups[0].count: 2000000 nodes bring the platform over the limit of 1048576"},
		{"pes cap", "groups:\n  - count: 2\n    pes: @@2000000000\n", "groups[0].pes: 2000000000 processors per node is over the limit"},
		{"unknown key", "groups:\n  - count: 2\n    @@sped: 1\n", `groups[0].sped: unknown key "sped"`},
		{"groups mapping", "groups: @@{count: 2}\n", "groups: want a list"},
		{"tag", "groups: @@!x [1]\n", "groups: YAML tag !x is not accepted here"},
		{"too big int", "groups:\n  - count: @@9223372036854775808\n", "groups[0].count: 9223372036854775808 is too large for an integer"},
	} {
		add(yamlCase("platform "+c.name, "plat.yaml", c.doc, []string{"simulate", "--platform", "@plat.yaml"}, exitInput, c.want))
	}
	add(badCase{name: "platform empty", files: map[string]string{"plat.yaml": ""}, args: []string{"simulate", "--platform", "@plat.yaml"}, code: exitInput, want: "the platform file is empty"})

	// Tree files of a hierarchy (--tree).
	treeHead := "domains:\n  - name: a\n    nodes:\n      - count: 2\n        "
	treeArgs := []string{"simulate", "--tree", "@tree.yaml", "--policy", "grid-stat", "--overrun", "extend"}
	for _, f := range []struct{ name, rng string }{{"pes", "[0,]"}, {"speed", "[0,]"}, {"memory", "[0,]"}} {
		for _, v := range append(rangeValues(f.rng, f.name == "pes"), "many", "[1]") {
			add(yamlCase("tree "+f.name+" "+v, "tree.yaml", treeHead+f.name+": @@"+v+"\n", treeArgs, exitInput, "domains[0].nodes[0]."+f.name+": "))
		}
	}
	for _, c := range []struct{ name, doc, want string }{
		{"count 0", "domains:\n  - name: a\n    nodes: [{count: @@0}]\n", "domains[0].nodes[0].count: 0 is out of range"},
		{"count hex", "domains:\n  - name: a\n    nodes: [{count: @@-0x4}]\n", "domains[0].nodes[0].count: -0x4 (= -4) is out of range"},
		{"count cap", "domains:\n  - name: a\n    nodes: [{count: @@10000000}]\n", "domains[0].nodes[0].count: 10000000 nodes bring the tree over the limit of 1048576 nodes (raise it with --max-nodes)"},
		{"pes cap", "domains:\n  - name: a\n    nodes: [{count: 2, pes: @@2000000000}]\n", "domains[0].nodes[0].pes: 2000000000 processors per node is over the limit"},
		{"speed floor", "domains:\n  - name: a\n    nodes: [{count: 2, speed: @@1.0e-300}]\n", "domains[0].nodes[0].speed: must be at least 0.001"},
		{"bandwidth", "domains:\n  - name: a\n    nodes: [{count: 2}]\n    bandwidth: @@-1\n", "domains[0].bandwidth: -1 is out of range"},
		{"unknown key", "domains:\n  - name: a\n    @@nodez: [{count: 2}]\n", `domains[0].nodez: unknown key "nodez"`},
	} {
		add(yamlCase("tree "+c.name, "tree.yaml", c.doc, treeArgs, exitInput, c.want))
	}

	// SWF traces: every field with values that are not its numbers.
	rec := []string{"1", "0", "0", "10", "1", "-1", "-1", "1", "10", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1"}
	for f := range 18 {
		bads := []string{"x", "0x10", "1_0", "NaN", "1e400", "--1", "1e17"}
		if f == 0 || f == 4 || f == 7 || f >= 10 && f <= 16 {
			bads = append(bads, "1.5")
		}
		for _, v := range bads {
			r := append([]string(nil), rec...)
			r[f] = v
			add(badCase{name: fmt.Sprintf("swf field %d %s", f+1, v), files: map[string]string{"t.swf": "; MaxProcs: 4\n" + strings.Join(r, " ") + "\n"},
				args: []string{"simulate", "--workload", "@t.swf"}, code: exitInput, want: fmt.Sprintf("t.swf:2: field %d (%s)", f+1, swf.FieldNames[f])})
		}
	}
	for _, c := range []struct{ name, text, want string }{
		{"too many fields", "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1 5\n", "t.swf:1: more than 18 fields"},
		{"long line", strings.Repeat("1", 2<<20) + "\n", "t.swf:1"},
		{"MaxProcs negative", "; MaxProcs: -64\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n", `the header's MaxProcs is "-64"`},
		{"MaxProcs huge", "; MaxProcs: 2000000000\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n", "over the limit of 1048576"},
		{"MaxProcs hex", "; MaxProcs: 0x40\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n", `the header's MaxProcs is "0x40"`},
		{"gzip garbage", "\x1f\x8b\x08\x00garbage", "t.swf"},
		{"submit near 2^53", "; MaxProcs: 4\n1 0 0 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n2 9007199254740990 0 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n", "t.swf: record 2: the workload's time horizon"},
		{"work past 2^52", "; MaxProcs: 4\n1 0 0 4503599627370000 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n2 10 0 4503599627370000 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n", "t.swf: record 2: the workload's time horizon"},
	} {
		add(badCase{name: "swf " + c.name, files: map[string]string{"t.swf": c.text}, args: []string{"simulate", "--workload", "@t.swf"}, code: exitInput, want: c.want})
	}

	// CSV and JSON Lines workloads: every column with values that are not
	// its numbers, at the cell's line and column.
	row := []string{"1", "0", "10", "1", "10", "-1", "-1", "-1", "1", "-1", "1", "1", "1", "-1", "1", "1", "-1", "-1", "", "-1", "", "", "", "-1"}
	for k, col := range workload.Columns {
		for _, v := range []string{"x", "0x10", "1_0", "NaN", "inf", "1e400"} {
			r := append([]string(nil), row...)
			r[k] = v
			c := 1
			for _, x := range r[:k] {
				c += len(x) + 1
			}
			add(badCase{name: "csv " + col + " " + v, files: map[string]string{"w.csv": strings.Join(workload.Columns, ",") + "\n" + strings.Join(r, ",") + "\n"},
				args: []string{"simulate", "--workload", "@w.csv"}, code: exitInput, want: fmt.Sprintf("w.csv:2:%d: column %s: ", c, col)})
		}
		for _, v := range []string{`"x"`, "true", "[1]", "1e400", "{}"} {
			line := `{"id":1,"submit":0,"runtime":10,"procs":1`
			if k >= 4 {
				line += `,"` + col + `":` + v + "}"
			} else {
				line = strings.Replace(line+"}", `"`+col+`":`+row[k], `"`+col+`":`+v, 1)
			}
			add(badCase{name: "jsonl " + col + " " + v, files: map[string]string{"w.jsonl": line + "\n"},
				args: []string{"simulate", "--workload", "@w.jsonl"}, code: exitInput, want: fmt.Sprintf("w.jsonl:1:%d: field %s: ", strings.Index(line, `"`+col+`"`)+1, col)})
		}
	}
	for _, c := range []struct{ name, file, text, want string }{
		{"csv empty", "w.csv", "", "w.csv:1: the file is empty"},
		{"csv unknown column", "w.csv", "id,submit,runtime,procs,speed\n", `w.csv:1:25: unknown column "speed"`},
		{"csv column twice", "w.csv", "id,submit,runtime,procs,id\n", `w.csv:1:25: column "id" appears twice`},
		{"csv no procs", "w.csv", "id,submit,runtime\n1,0,10\n", `w.csv:1: column "procs" is required`},
		{"csv huge cell", "w.csv", "id,submit,runtime,procs\n1," + strings.Repeat("9", 3<<20) + ",10,1\n", "w.csv:2: a record longer than 1048576 bytes"},
		{"csv huge quoted cell", "w.csv", "id,submit,runtime,procs\n1,0,10,\"" + strings.Repeat("1\n", 1<<20) + "\"\n", "w.csv:2: a record longer than 1048576 bytes"},
		{"jsonl not an object", "w.jsonl", "[1]\n", "w.jsonl:1:1: want a JSON object"},
		{"jsonl unknown field", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1,"speed":2}` + "\n", `w.jsonl:1:42: unknown field "speed"`},
		{"jsonl field twice", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1,"id":2}` + "\n", `w.jsonl:1:42: field "id" appears twice`},
		{"jsonl missing procs", "w.jsonl", `{"id":1,"submit":0,"runtime":5}` + "\n", `w.jsonl:1:1: field "procs" is required`},
		{"jsonl long line", "w.jsonl", `{"id":` + strings.Repeat("1", 2<<20) + "}\n", "w.jsonl:1: the line is longer than 1048576 bytes"},
		{"jsonl text after", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1} x` + "\n", "w.jsonl:1:"},
	} {
		add(badCase{name: c.name, files: map[string]string{c.file: c.text}, args: []string{"simulate", "--workload", "@" + c.file}, code: exitInput, want: c.want})
	}

	// Workload model parameter files (workload generate --params).
	gen := func(model string) []string {
		return []string{"workload", "generate", "--model", model, "--params", "@p.yaml", "--jobs", "5", "--out", "@never.swf"}
	}
	for _, c := range []struct{ model, doc, want string }{
		{"gang", "q: @@7\n", "q: 7 is not a probability"},
		{"gang", "lambda: 2\n@@lamda: 3\n", `unknown field "lamda"`},
		{"gang", "lambda: @@many\n", "cannot unmarshal"},
		{"gang", "lambda: @@-1\n", "lambda: "},
		{"gang", "mu: @@0\n", "mu: "},
		{"grid", "alpha: @@0.5\n", "alpha: must be >= 1, got 0.5"},
		{"grid", "s: @@-1\n", "s: "},
		{"grid", "sites: @@[]\n", "sites: "},
		{"lublin", "nodes: @@-5\n", "nodes: "},
		{"lublin", "nodes: @@[1]\n", "cannot unmarshal"},
		{"reservations", "lambda: @@-1\n", "lambda: "},
		{"reservations", "requests: @@1000000000\n", "requests: 1000000000 is over the limit of 10000000 jobs (raise it with --max-jobs)"},
		{"reservations", "background: @@1000000000\n", "background: 1000000000 is over the limit"},
		{"reservations", "resources: @@1000000000\n", "resources: 1000000000 is over the limit of 1048576 nodes"},
		{"reservations", "requests: @@-1\n", "requests: must be >= 0"},
		{"reservations", "flexibility: @@2\n", "flexibility: "},
		{"reservations", "window_min: @@0\n", "window_min: must be positive"},
		{"reservations", "duration_at: @@1\n", "duration_at: must be in [0,1)"},
		{"reservations", "background_cover: @@1\n", "background_cover: needs requests > 0"},
	} {
		add(yamlCase("params "+c.model+" "+c.want, "p.yaml", c.doc, gen(c.model), exitInput, c.want))
	}

	// Specs: the spec's own fields.
	spec := func(name, doc string, code int, want string) badCase {
		return yamlCase("spec "+name, "spec.yaml", doc, []string{"run", "@spec.yaml", "--out", "@never"}, code, want)
	}
	base := func(key, value string) string {
		d := corpusSpecHead
		for _, line := range strings.SplitAfter(d, "\n") {
			if strings.HasPrefix(line, key+":") {
				d = strings.Replace(d, line, "", 1)
			}
		}
		return d + key + ": " + value + "\n"
	}
	for _, c := range []struct {
		key, value, want string
	}{
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: @@0}", "workload.jobs: 0 is out of range"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: @@-0x1}", "workload.jobs: -0x1 (= -1) is out of range"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: @@1000000000}", "workload.jobs: 1000000000 jobs is over the limit of 10000000"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: @@many}", "workload.jobs: want an integer"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: 10, skip: @@-1}", "workload.skip: -1 is out of range"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: 10, arrival_scale: @@0}", "workload.arrival_scale: 0 is out of range"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: 10, arrival_scale: @@.nan}", "workload.arrival_scale: want a finite number"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: 10, estimates: @@guess}", "workload.estimates: want requested, exact or gridsim"},
		{"workload", "{model: lublin, params: {nodes: 16}, jobs: 10, admitted_at: @@0x1}", "workload.admitted_at: 0x1 (= 1) is out of range"},
		{"workload", "{model: @@nosuchmodel, jobs: 10}", "workload.model: unknown workload model"},
		{"workload", "{model: lublin, params: {nodes: @@-5}, jobs: 10}", "workload.params.nodes: "},
		{"workload", "{trace: @@nosuch.swf}", "workload.trace: trace \"nosuch.swf\" not found"},
		{"platform", "{nodes: @@0}", "platform.nodes: 0 is out of range"},
		{"platform", "{nodes: @@2000000000}", "platform.nodes: 2000000000 nodes is over the limit of 1048576"},
		{"platform", "{nodes: 16, pes: @@0b0}", "platform.pes: 0b0 (= 0) is out of range"},
		{"platform", "{nodes: 16, unstable_fraction: @@2}", "platform.unstable_fraction: 2 is out of range"},
		{"platform", "{nodes: 16, p_stable: @@-0o1}", "platform.p_stable: -0o1 (= -1) is out of range"},
		{"platform", "{nodes: 16, levels: @@0}", "platform.levels: 0 is out of range"},
		{"platform", "{nodes: 16, file: @@nosuch.yaml}", "platform.file: "},
		{"replications", "{count: @@0}", "replications.count: 0 is out of range"},
		{"replications", "{count: @@1000000000}", "replications.count: 1000000000 replications is over the limit"},
		{"replications", "{min: @@1, max: 5, metric: mean_wait, rel_halfwidth: 0.1}", "replications.min: 1 is out of range"},
		{"replications", "{min: 5, max: @@3, metric: mean_wait, rel_halfwidth: 0.1}", "replications.max: must be >= min (5), got 3"},
		{"replications", "{min: 3, max: 5, metric: mean_wait, rel_halfwidth: @@0x1}", "replications.rel_halfwidth: 0x1 (= 1) is out of range"},
		{"replications", "{min: 3, max: 5, metric: @@nosuch, rel_halfwidth: 0.1}", `replications.metric: unknown metric "nosuch"`},
		{"replications", "@@5", "replications: want a mapping"},
		{"seed", "@@-1", "seed: want a non-negative integer"},
		{"seed", "@@-0x1", "seed: want a non-negative integer"},
		{"policies", "[fcfs, @@nosuch]", `policies[1]: unknown policy "nosuch"`},
		{"policies", "[fcfs, @@fcfs]", "policies[1]: policy fcfs is given twice"},
		{"policies", "[@@grid-stat]", "policies[0]: grid-stat needs a hierarchy section"},
		{"metrics", "[mean_wait, @@nosuch]", `metrics[1]: unknown metric "nosuch"`},
		{"overrun", "@@sometimes", "overrun: want kill or extend"},
		{"node_select", "@@nosuch", `node_select: unknown node selection "nosuch"`},
		{"node_select", "@@u", "node_select: node selection u needs the instability section"},
		{"name", "@@[a]", "name: want a text value"},
		{"@@policys", "[fcfs]", `policys: unknown key "policys"`},
		{"grid", "{workload.arrival_scale: [1.0, @@1]}", "grid.workload.arrival_scale[1]: 1 is given twice"},
		{"grid", "{workload.arrival_scale: [@@0, 1]}", "grid.workload.arrival_scale[0]: 0 is out of range"},
		{"grid", "{platform.nodes: [8, @@2000000000]}", "grid.platform.nodes[1]: platform.nodes: 2000000000 nodes is over the limit"},
		{"grid", "{workload.params.nodes: [16, @@-5]}", "grid.workload.params.nodes[1]: configuration"},
		{"grid", "{nosuch.key: @@[1, 2]}", `grid.nosuch.key: unknown parameter "nosuch.key"`},
		{"grid", "{node_select: [first-fit, @@u]}", "grid.node_select[1]: node selection u needs the instability section"},
		{"grid", "{workload.trace: [@@nosuch.swf]}", "grid.workload.trace[0]: trace \"nosuch.swf\" not found"},
		{"zip", "{workload.arrival_scale: @@[1, 2], platform.nodes: [8]}", "zip.workload.arrival_scale: zipped lists must have the same length: 2 here, 1 before"},
		{"grid", "{workload.arrival_scale: @@[]}", "grid.workload.arrival_scale: an empty list of values"},
		{"zip", "{workload.arrival_scale: [1, 1], platform.nodes: [8, @@8]}", "zip.platform.nodes[1]: the zip tuple"},
		{"plot", "{x: @@nosuch}", `plot.x: "nosuch" is not a grid or zip parameter`},
		{"labels", "{quick: {replications: {count: @@0}}}", "labels.quick.replications.count: 0 is out of range"},
	} {
		add(spec(c.key+" "+c.value+" "+c.want, base(c.key, c.value), exitInput, c.want))
	}
	var huge strings.Builder
	huge.WriteString(corpusSpecHead + "grid:\n")
	for i := range 8 {
		fmt.Fprintf(&huge, "  workload.params.k%d: [1,2,3,4,5,6,7,8,9,10]\n", i)
	}
	add(badCase{name: "spec grid of 10^8 configurations", files: map[string]string{"spec.yaml": huge.String()}, args: []string{"run", "@spec.yaml", "--out", "@never"}, code: exitInput, want: "the sweep has 100000000 configurations, over the limit of 100000"})
	bomb := corpusSpecHead + "zip:\n  workload.jobs: &a [1,1,1,1,1,1,1,1,1,1]\n  x1: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  x2: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  x3: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  x4: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	add(badCase{name: "spec alias bomb", files: map[string]string{"spec.yaml": bomb}, args: []string{"run", "@spec.yaml", "--out", "@never"}, code: exitInput, want: "the document expands to more than 100000 values"})
	add(badCase{name: "spec too large", files: map[string]string{"spec.yaml": corpusSpecHead + "description: " + strings.Repeat("x", 2<<20) + "\n"}, args: []string{"run", "@spec.yaml", "--out", "@never"}, code: exitInput, want: "spec.yaml"})
	add(badCase{name: "spec trace malformed early", files: map[string]string{"bad.swf": "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n2 x 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n",
		"spec.yaml": "name: corpus\nworkload: {trace: bad.swf}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"},
		args: []string{"run", "@spec.yaml", "--out", "@never"}, code: exitInput, want: `bad.swf:3: field 2 (submit time): "x" is not a number`})
	add(badCase{name: "spec missing", args: []string{"run", "@nosuch.yaml", "--out", "@never"}, code: exitInput, want: "no such file"})
	add(badCase{name: "spec no label", files: map[string]string{"spec.yaml": corpusSpecHead}, args: []string{"run", "@spec.yaml", "--label", "nosuch", "--out", "@never"}, code: exitInput, want: `no label "nosuch"`})

	// Command-line flags: refused with exit status 2, never replaced by
	// a default.
	sim := func(flags ...string) []string { return append([]string{"simulate"}, flags...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{sim("--nodes", "0"), "--nodes 0: out of range"}, {sim("--nodes", "-5"), "--nodes -5"}, {sim("--nodes", "x"), `invalid argument "x" for "--nodes"`},
		{sim("--jobs", "0"), "--jobs 0"}, {sim("--jobs", "2000000000"), "--jobs 2000000000: over the limit of 10000000"},
		{sim("--jobs", "1e12"), `invalid argument "1e12"`},
		{sim("--max-procs", "0"), "--max-procs 0"}, {sim("--first", "0"), "--first 0"}, {sim("--skip", "-1"), "--skip -1"},
		{sim("--arrival-scale", "0"), "--arrival-scale 0"}, {sim("--arrival-scale", "-1"), "--arrival-scale -1"},
		{sim("--arrival-scale", "NaN"), "--arrival-scale NaN"}, {sim("--arrival-scale", "+Inf"), "--arrival-scale +Inf"},
		{sim("--load", "0"), "--load 0"}, {sim("--load", "NaN"), "--load NaN"}, {sim("--load", "-Inf"), "--load -Inf"},
		{sim("--seed", "-1"), `invalid argument "-1" for "--seed"`},
		{sim("--estimates", "guess"), `--estimates: want requested, exact or gridsim, got "guess"`},
		{sim("--overrun", "maybe"), `--overrun: want kill or extend, got "maybe"`},
		{sim("--policy", ""), "--policy: name a policy"}, {sim("--policy", "eazy"), `unknown policy "eazy"`},
		{sim("--policy", strings.Repeat("e", 30000)), `unknown policy "eeee`}, // quoted clipped, not 30 KB twice
		{sim("--policy", "easy:order=sjf,"+strings.Repeat("x", 30000)), `(30015 bytes), column 16: "xxxx`},
		{sim("--policy", "easy:factor=0x1p-2"), `column 13: factor "0x1p-2": want a finite decimal number`},
		{sim("--policy", "easy:order=sjf,order=ljf"), `column 16: key "order" given twice`},
		{sim("--policy", "grid-stat"), "grid-stat needs a hierarchy section"},
		{sim("--node-select", "nosuch"), `unknown node selection "nosuch"`},
		{sim("--node-select", "u"), "node selection u needs the instability section"},
		{sim("--instability", "periods", "--cycle", "0.5"), "--cycle: out of range (at least 60 seconds)"},
		{sim("--cycle", "100"), "--cycle: needs --instability periods"},
		{sim("--tree", "paper109", "--heterogeneity", "2", "--policy", "grid-stat"), "--heterogeneity: out of range"},
		{sim("--model-param", "cloud.xfactor=-1"), "cloud.xfactor"}, {sim("--model-param", "nosuch.x=1"), `no system has a section "nosuch"`},
		{sim("--model-param", "noequals"), "want section.key=value"}, {sim("--no-such-flag"), "unknown flag: --no-such-flag"},
		{[]string{"simulate", "extra-arg"}, `unknown command "extra-arg"`},
		{[]string{"run", "@spec-ok.yaml", "--workers", "-1"}, "--workers -1: want at least 1"},
		{[]string{"run", "@spec-ok.yaml", "--workers", "0"}, "--workers 0: want at least 1"},
		{[]string{"run", "@spec-ok.yaml", "--shard", "0/2"}, `--shard "0/2": want I/N`},
		{[]string{"run", "@spec-ok.yaml", "--shard", "3/2"}, `--shard "3/2"`}, {[]string{"run", "@spec-ok.yaml", "--shard", "x"}, `--shard "x"`},
		{[]string{"run", "@spec-ok.yaml", "--shard", "env"}, "--shard env: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
		{[]string{"run"}, "accepts 1 arg(s), received 0"}, {[]string{"run", "a", "b"}, "accepts 1 arg(s), received 2"},
		{[]string{"report", "@spec-ok.yaml", "--window", "-5"}, "--window -5: want a positive number"},
		{[]string{"report", "@spec-ok.yaml", "--window", "NaN"}, "--window NaN"}, {[]string{"report", "@spec-ok.yaml", "--window", "0"}, "--window 0"},
		{[]string{"report"}, "requires at least 1 arg(s)"}, {[]string{"merge", "@x.db"}, "--out: the folder for the merged store is required"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "0"}, "--shards 0: want 1 to 100000"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "1000000000"}, "--shards 1000000000: want 1 to 100000"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "3"}, "--shards 3: the sweep has 2 runs"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "1", "--cpus", "0"}, "--cpus 0: want 1 to 4096"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "1", "--cpus", "-3"}, "--cpus -3"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "1", "--sbatch", "--x=1\ntouch y"}, "want one sbatch option"},
		{[]string{"slurm", "@spec-ok.yaml", "--shards", "1", "--sbatch", "partition=x"}, "want one sbatch option"},
		{[]string{"workload", "generate", "--model", "lublin", "--jobs", "-1", "--out", "@g.swf"}, "--jobs: must be >= 1, got -1"},
		{[]string{"workload", "generate", "--model", "lublin", "--jobs", "0", "--out", "@g.swf"}, "--jobs: must be >= 1, got 0"},
		{[]string{"workload", "generate", "--model", "lublin", "--jobs", "1000000000000", "--out", "@g.swf"}, "--jobs 1000000000000: over the limit of 10000000 jobs"},
		{[]string{"workload", "generate", "--model", "lublin", "--out", "@g.swf"}, "--jobs: say how many jobs to generate"},
		{[]string{"workload", "generate", "--model", "nosuch", "--jobs", "5", "--out", "@g.swf"}, `unknown workload model "nosuch"`},
		{[]string{"workload", "generate", "--model", "lublin", "--jobs", "5"}, "--out: the output file is required"},
		{[]string{"workload", "stats", "@spec-ok.yaml", "--procs", "-3"}, "--procs -3: want at least 1"},
		{[]string{"reproduce", "--workers", "-2"}, "--workers -2"}, {[]string{"reproduce", "nosuch"}, "no built-in experiment matches [nosuch]"},
		{[]string{"experiments", "show", "nosuch"}, `no built-in experiment "nosuch"`},
		{[]string{"--max-nodes", "0", "simulate"}, "--max-nodes: must be >= 1, got 0"},
		{[]string{"--max-jobs", "-1", "simulate"}, "--max-jobs: must be >= 1, got -1"},
		{[]string{"--max-runs", "0", "simulate"}, "--max-runs: must be >= 1, got 0"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
	} {
		files := map[string]string{"spec-ok.yaml": "name: ok\nworkload: {model: lublin, params: {nodes: 16}, jobs: 10}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"}
		add(badCase{name: "flag " + strings.Join(c.args, " "), files: files, args: c.args, code: exitUsage, want: c.want})
	}

	// Stores: foreign, damaged, of a newer format, of an older one, a
	// folder; refused untouched by run, report and merge.
	cs = append(cs, storeCases(t, dir)...)
	return cs
}

// storeCases are the corpus's result stores (made in dir).
func storeCases(t *testing.T, dir string) []badCase {
	mk := func(name string, stmts ...string) string {
		p := filepath.Join(dir, "stores", name, experiment.StoreFile)
		os.MkdirAll(filepath.Dir(p), 0o755)
		db, err := sql.Open("sqlite", "file:"+p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	foreign := mk("foreign", `CREATE TABLE photos (id INTEGER)`)
	blank := mk("blank", `PRAGMA user_version = 1`)
	newer := mk("newer", `PRAGMA application_id = 1196639048`, `PRAGMA user_version = 99`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
	old := mk("old", `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE runs (run_key TEXT PRIMARY KEY, config_index INTEGER NOT NULL, config_id TEXT NOT NULL, params TEXT NOT NULL, replication INTEGER NOT NULL, seed TEXT NOT NULL, metrics TEXT NOT NULL)`,
		`INSERT INTO meta VALUES ('spec_hash', 'x'), ('spec', '{"name":"ok"}'), ('name', 'ok'), ('label', '')`,
		`INSERT INTO runs VALUES ('k#0', 0, 'policy=fcfs', '{}', 0, '1', '{"mean_wait":1}')`)
	garbage := filepath.Join(dir, "stores", "garbage", experiment.StoreFile)
	os.MkdirAll(filepath.Dir(garbage), 0o755)
	os.WriteFile(garbage, []byte(strings.Repeat("not sqlite ", 500)), 0o644)
	folder := filepath.Join(dir, "stores", "folder", experiment.StoreFile)
	os.MkdirAll(folder, 0o755)
	specOK := "name: ok\nworkload: {model: lublin, params: {nodes: 16}, jobs: 10}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"
	var cs []badCase
	for _, c := range []struct {
		store string
		code  int
		want  string
	}{
		{foreign, exitInput, "not a gridsched result store (an SQLite file with tables photos"},
		{blank, exitInput, "not a gridsched result store (an SQLite file with no tables"},
		{newer, exitInput, "made by a newer gridsched (store format 99"},
		{garbage, exitInternal, "the result store is damaged"},
		{folder, exitInput, "it is a folder|neither a result store"},
	} {
		name := filepath.Base(filepath.Dir(c.store))
		out := filepath.Dir(c.store)
		cs = append(cs,
			badCase{name: "store " + name + " resume", files: map[string]string{"spec-ok.yaml": specOK}, args: []string{"run", "@spec-ok.yaml", "--out", out, "--resume", "--quiet"}, code: c.code, want: c.want},
			badCase{name: "store " + name + " report", args: []string{"report", c.store, "--out", filepath.Join(dir, "never-report")}, code: c.code, want: c.want},
			badCase{name: "store " + name + " merge", args: []string{"merge", "--out", filepath.Join(dir, "never-merge"), c.store}, code: c.code, want: c.want},
		)
	}
	cs = append(cs,
		badCase{name: "store old format resume", files: map[string]string{"spec-ok.yaml": specOK}, args: []string{"run", "@spec-ok.yaml", "--out", filepath.Dir(old), "--resume", "--quiet"}, code: exitInput, want: "written by an older gridsched (store format 1"},
		badCase{name: "store missing report", args: []string{"report", filepath.Join(dir, "stores", "nosuch.db")}, code: exitInput, want: "no such file"},
		badCase{name: "store missing merge", args: []string{"merge", "--out", filepath.Join(dir, "never-merge"), filepath.Join(dir, "stores", "nosuch.db")}, code: exitInput, want: "no such file"},
		badCase{name: "store neither folder", args: []string{"report", filepath.Join(dir, "stores")}, code: exitInput, want: "neither a result store"},
	)
	return cs
}
