package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
)

func TestExtensionPolicyNameTaken(t *testing.T) {
	var stderr bytes.Buffer
	code := Run([]string{"policies"}, &bytes.Buffer{}, &stderr,
		Policy("easy", "another easy", func(policy.NodeSelector) engine.Policy { return nil }))
	if code == 0 || !strings.Contains(stderr.String(), `a policy named "easy" is already registered`) {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var stdout bytes.Buffer
	if code := Run([]string{"policies"}, &stdout, &stderr, Policy("test-ext", "a test extension", func(sel policy.NodeSelector) engine.Policy { return policy.NewFCFS(sel) })); code != 0 || !strings.Contains(stdout.String(), "test-ext") {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}
