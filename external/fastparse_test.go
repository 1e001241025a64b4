package external

import (
	"reflect"
	"testing"
)

// general parses line with the general (encoding/json) path only.
func general(line []byte) (reply, error) {
	var r reply
	err := r.parseGeneral(line)
	return r, err
}

// sameReply compares what both parsers give (the raw action texts aside).
func sameReply(a, b reply) bool {
	for i := range a.Actions {
		a.Actions[i].raw = ""
	}
	for i := range b.Actions {
		b.Actions[i].raw = ""
	}
	if len(a.Actions) == 0 && len(b.Actions) == 0 {
		a.Actions, b.Actions = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

var decisionSeeds = []string{
	`{"type":"decision","seq":1,"actions":[]}`,
	`{"type":"decision","seq":12,"actions":[{"start":3},{"start":4,"alloc":[[0,2,1],[5,1,4]]},{"reject":7},{"preempt":1},{"kill":2},{"timer":3600.5,"tag":9}],"wake":{"fits":true}}`,
	` { "seq" : 3 , "actions" : null , "type" : "decision" , "wake" : null } `,
	`{"type":"decision","seq":1,"actions":[],"wake":{"free":8,"submit":false,"fits":true}}`,
	`{"type":"decision","seq":1,"actions":[{"timer":1e3},{"timer":-0.5}]}`,
	`{"type":"decision","seq":1,"actions":[{"start":1.0}]}`,
	`{"type":"decision","seq":1,"actions":[{"start":01}]}`,
	`{"type":"decision","seq":1,"actions":[{"start":1,"start":2}]}`,
	`{"type":"decision","seq":1,"actions":[{"start":1,"alloc":[[0,1]]}]}`,
	`{"type":"decision","seq":1,"actions":[{"start":1,"alloc":[[0,1,1,1]]}]}`,
	`{"type":"decision","seq":1,"actions":[{"launch":1}]}`,
	`{"type":"decision","seq":1}`,
	`{"type":"decisio\u006e","seq":1,"actions":[]}`,
	`{"type":"decision","seq":1,"actions":[]} x`,
	`{"type":"decision","seq":99999999999999999999,"actions":[]}`,
	`{"type":"hello","protocol":1}`,
	`[]`,
	``,
}

// TestFastParseAgreesWithGeneral: whatever the fast path accepts, the
// general parser accepts with the same fields.
func TestFastParseAgreesWithGeneral(t *testing.T) {
	accepted := 0
	for _, s := range decisionSeeds {
		var fast reply
		if !parseDecision([]byte(s), &fast) {
			continue
		}
		accepted++
		slow, err := general([]byte(s))
		if err != nil || !sameReply(fast, slow) {
			t.Errorf("%s: fast %+v, general %+v (%v)", s, fast, slow, err)
		}
	}
	if accepted < 5 {
		t.Errorf("the fast path accepted only %d of the well-formed seeds", accepted)
	}
}

func FuzzDecision(f *testing.F) {
	for _, s := range decisionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast reply
		if !parseDecision(b, &fast) {
			return
		}
		slow, err := general(b)
		if err != nil || !sameReply(fast, slow) {
			t.Fatalf("%q: fast %+v, general %+v (%v)", b, fast, slow, err)
		}
	})
}
