package serve_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/external/serve"
	"github.com/gridsched/gridsched/internal/testenv"
	_ "github.com/gridsched/gridsched/system/all"
)

// client talks to a Server over pipes.
type client struct {
	t   *testing.T
	w   io.WriteCloser
	r   *bufio.Reader
	end chan error
}

func start(t *testing.T) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, r: bufio.NewReader(outR), end: make(chan error, 1)}
	go func() {
		err := serve.New(inR, outW).Serve()
		outW.Close()
		c.end <- err
	}()
	return c
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) recv() map[string]any {
	c.t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("%s: %v", line, err)
	}
	return m
}

func (c *client) close() {
	c.t.Helper()
	c.w.Close()
	if err := <-c.end; err != nil {
		c.t.Fatal(err)
	}
}

// TestServe: runs of built-in policies, workload sizes, the client as
// the external scheduler (FCFS by hand: the same result as fcfs), and
// errors that leave the server serving.
func TestServe(t *testing.T) {
	c := start(t)
	defer c.close()
	c.send(`{"type":"policies"}`)
	if m := c.recv(); m["type"] != "policies" || !strings.Contains(fmt.Sprint(m["names"]), "external") {
		t.Fatalf("policies: %v", m)
	}
	c.send(`{"type":"run","config":{"policy":"fcfs","jobs":120,"seed":4}}`)
	want := c.recv()
	if want["type"] != "result" || want["summary"] == nil {
		t.Fatalf("fcfs: %v", want)
	}
	// The same run with this test as the scheduler: FCFS by hand.
	c.send(`{"type":"run","config":{"policy":"external","jobs":120,"seed":4}}`)
	if m := c.recv(); m["type"] != "hello" || m["protocol"] != 1.0 {
		t.Fatalf("hello: %v", m)
	}
	c.send(`{"type":"hello","protocol":1,"name":"test"}`)
	var waiting []map[string]any
	for {
		m := c.recv()
		if m["type"] == "end" {
			break
		}
		for _, e := range m["events"].([]any) {
			if ev := e.(map[string]any); ev["type"] == "submit" {
				waiting = append(waiting, ev["job"].(map[string]any))
			}
		}
		free := int(m["free"].(float64))
		var acts []string
		for len(waiting) > 0 && int(waiting[0]["processors"].(float64)) <= free {
			free -= int(waiting[0]["processors"].(float64))
			acts = append(acts, fmt.Sprintf(`{"start":%v}`, waiting[0]["id"]))
			waiting = waiting[1:]
		}
		c.send(fmt.Sprintf(`{"type":"decision","seq":%v,"actions":[%s]}`, m["seq"], strings.Join(acts, ",")))
	}
	got := c.recv()
	gs, ws := got["summary"].(map[string]any), want["summary"].(map[string]any)
	if fmt.Sprint(gs["wait"]) != fmt.Sprint(ws["wait"]) || gs["policy"] != "external" {
		t.Errorf("by hand: %v\nfcfs: %v", gs, ws)
	}
	// Errors come back as results; the server goes on.
	for req, want := range map[string]string{
		`{"type":"run","config":{"policy":"nope"}}`:                         "unknown policy",
		`{"type":"run","config":{"polcy":"easy"}}`:                          `unknown field "polcy"`,
		`{"type":"launch"}`:                                                 "unknown type",
		`not json`:                                                          "not a request",
		`{"type":"run","config":{"policy":"easy","scheduler":"x"}}`:         "for policy external",
		`{"type":"run","config":{"jobs":10,"window":{"start":5,"jobs":9}}}`: "window",
	} {
		c.send(req)
		if m := c.recv(); m["type"] != "result" || !strings.Contains(fmt.Sprint(m["error"]), want) {
			t.Errorf("%s: want an error with %q, got %v", req, want, m)
		}
	}
	// A scheduler's invalid action ends its run with the rule, as a result.
	c.send(`{"type":"run","config":{"policy":"external","jobs":20}}`)
	c.recv()
	c.send(`{"type":"hello","protocol":1}`)
	m := c.recv()
	c.send(fmt.Sprintf(`{"type":"decision","seq":%v,"actions":[{"start":12345}]}`, m["seq"]))
	if m := c.recv(); m["type"] != "result" || !strings.Contains(fmt.Sprint(m["error"]), "(rule: unknown job)") {
		t.Errorf("invalid action: %v", m)
	}
}

// TestServeWindows: a trace is loaded once and windows of it run.
func TestServeWindows(t *testing.T) {
	path := testenv.Trace(t, "lublin_256.swf")
	c := start(t)
	defer c.close()
	c.send(fmt.Sprintf(`{"type":"workload","config":{"workload":%q}}`, path))
	if m := c.recv(); m["jobs"] != 10000.0 || m["processors"] != 256.0 {
		t.Fatalf("workload: %v", m)
	}
	c.send(fmt.Sprintf(`{"type":"run","config":{"workload":%q,"policy":"easy","window":{"start":9900,"jobs":100}}}`, path))
	m := c.recv()
	s, ok := m["summary"].(map[string]any)
	if !ok || s["jobs"] != 100.0 || !strings.HasSuffix(fmt.Sprint(s["workload"]), "[9900:10000]") {
		t.Fatalf("window: %v", m)
	}
}
