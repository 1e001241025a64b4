package external_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary be a scheduler: "TESTBINARY scheduler
// MODE…" runs helperScheduler instead of the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "scheduler" {
		os.Exit(helperScheduler(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// helperCommand is the command line of the helper scheduler with modes.
func helperCommand(modes ...string) string {
	q := []string{strconv.Quote(os.Args[0]), "scheduler"}
	for _, m := range modes {
		q = append(q, strconv.Quote(m))
	}
	return strings.Join(q, " ")
}

type hJob struct {
	ID         int64 `json:"id"`
	Processors int   `json:"processors"`
}

type hEvent struct {
	Type string `json:"type"`
	Job  *hJob  `json:"job"`
	ID   int64  `json:"id"`
}

type hMsg struct {
	Type   string   `json:"type"`
	Seq    int64    `json:"seq"`
	Now    float64  `json:"now"`
	Free   int      `json:"free"`
	Events []hEvent `json:"events"`
}

// helperScheduler is FCFS over the protocol, misbehaving as the modes
// say (K is a decision number, counted from 1):
//
//	crash=K          exit with status 3 at decision K (after a line on stderr)
//	garbage=K        answer decision K with a line that is not JSON
//	reply=K:TEXT     answer decision K with TEXT
//	act=K:CLASS      at decision K (or the first after it where the class
//	                 can be shown), one invalid action of CLASS
//	sleep=K          never answer decision K
//	sleepfile=PATH   write its pid to PATH when it starts sleeping
//	idle             never start a job
//	timers           never start a job; ask for a timer 60 s ahead each time
//	die=K:PHASE      SIGKILL itself at decision K: before reading it, or
//	                 after writing half of its answer (PHASE: read, write)
//	pidfile=PATH     write its pid to PATH first
//	grandchild=PATH  start "sleep 600" in its process group, pid to PATH
//	hello=N          answer hello with protocol N
//	unless=PATH      the modes after it apply only while PATH does not exist
func helperScheduler(modes []string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) {
		out.WriteString(s)
		out.WriteString("\n")
		out.Flush()
	}
	at := func(mode string) (int, string, bool) {
		for _, m := range modes {
			k, v, _ := strings.Cut(m, "=")
			if k != mode {
				continue
			}
			n, rest, _ := strings.Cut(v, ":")
			d, _ := strconv.Atoi(n)
			return d, rest, true
		}
		return 0, "", false
	}
	for i, m := range modes {
		if k, v, _ := strings.Cut(m, "="); k == "unless" {
			if _, err := os.Stat(v); err == nil {
				modes = modes[:i]
			}
			break
		}
	}
	if p := modeValue(modes, "pidfile"); p != "" {
		os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if p := modeValue(modes, "grandchild"); p != "" {
		c := exec.Command("sleep", "600")
		c.Start()
		os.WriteFile(p, []byte(strconv.Itoa(c.Process.Pid)), 0o644)
	}
	if !in.Scan() {
		return 1
	}
	proto := "1"
	if v := modeValue(modes, "hello"); v != "" {
		proto = v
	}
	send(`{"type":"hello","protocol":` + proto + `,"name":"helper"}`)
	var waiting []hJob
	running := map[int64]int{}
	idle := hasMode(modes, "idle") || hasMode(modes, "timers")
	for n := 1; ; n++ {
		if k, phase, ok := at("die"); ok && k == n && phase == "read" {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		if !in.Scan() {
			return 0
		}
		var msg hMsg
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "helper: bad message:", err)
			return 2
		}
		if msg.Type == "end" {
			return 0
		}
		for _, e := range msg.Events {
			switch e.Type {
			case "submit":
				waiting = append(waiting, *e.Job)
			case "end":
				delete(running, e.ID)
			case "requeue": // back in the queue, at its arrival position
				j := hJob{ID: e.ID, Processors: running[e.ID]}
				delete(running, e.ID)
				k := 0
				for k < len(waiting) && waiting[k].ID < j.ID {
					k++
				}
				waiting = append(waiting[:k], append([]hJob{j}, waiting[k:]...)...)
			}
		}
		if k, _, ok := at("crash"); ok && k == n {
			fmt.Fprintln(os.Stderr, "helper: crashing on purpose at decision", n)
			return 3
		}
		if k, _, ok := at("garbage"); ok && k == n {
			send(`this is not JSON`)
			continue
		}
		if k, text, ok := at("reply"); ok && k == n {
			send(text)
			continue
		}
		if k, _, ok := at("sleep"); ok && k == n {
			if p := modeValue(modes, "sleepfile"); p != "" {
				os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644)
			}
			time.Sleep(time.Hour)
		}
		var acts []string
		if k, class, ok := at("act"); ok && n >= k {
			if a := invalid(class, msg, waiting, running); a != "" {
				acts = append(acts, a)
			}
		}
		free := msg.Free
		for !idle && len(waiting) > 0 && waiting[0].Processors <= free {
			j := waiting[0]
			waiting = waiting[1:]
			free -= j.Processors
			running[j.ID] = j.Processors
			acts = append(acts, fmt.Sprintf(`{"start":%d}`, j.ID))
		}
		if hasMode(modes, "timers") {
			acts = append(acts, fmt.Sprintf(`{"timer":%g}`, msg.Now+60))
		}
		answer := fmt.Sprintf(`{"type":"decision","seq":%d,"actions":[%s]}`, msg.Seq, strings.Join(acts, ","))
		if k, phase, ok := at("die"); ok && k == n && phase == "write" {
			out.WriteString(answer[:len(answer)/2])
			out.Flush()
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		send(answer)
	}
}

// invalid is an action of the class, or "" if the state cannot show it
// yet.
func invalid(class string, m hMsg, waiting []hJob, running map[int64]int) string {
	switch class {
	case "unknown":
		return `{"start":999999}`
	case "running":
		for id := range running {
			return fmt.Sprintf(`{"start":%d}`, id)
		}
	case "toobig":
		for _, j := range waiting {
			if j.Processors > m.Free {
				return fmt.Sprintf(`{"start":%d}`, j.ID)
			}
		}
	case "past":
		return fmt.Sprintf(`{"timer":%g}`, m.Now-1)
	case "preempt-waiting":
		if len(waiting) > 0 {
			return fmt.Sprintf(`{"preempt":%d}`, waiting[0].ID)
		}
	case "bad-node":
		if len(waiting) > 0 {
			return fmt.Sprintf(`{"start":%d,"alloc":[[100000,1,%d]]}`, waiting[0].ID, waiting[0].Processors)
		}
	case "two-verbs":
		if len(waiting) > 0 {
			return fmt.Sprintf(`{"start":%d,"reject":%d}`, waiting[0].ID, waiting[0].ID)
		}
	case "unknown-key":
		return `{"launch":1}`
	}
	return ""
}

func hasMode(modes []string, name string) bool {
	for _, m := range modes {
		if m == name {
			return true
		}
	}
	return false
}

func modeValue(modes []string, name string) string {
	for _, m := range modes {
		if k, v, ok := strings.Cut(m, "="); ok && k == name {
			return v
		}
	}
	return ""
}
